# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # GRU sentiment classifier on IMDB with TensorFlow (Keras 3)
# The same classifier as a `keras.Sequential`, trained with `fit`.

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import keras
import numpy as np
import tensorflow as tf

from rosetta import report, settings
from rosetta.data import imdb

hp = settings("gru_imdb")
keras.utils.set_random_seed(hp.seed)
on_gpu = bool(tf.config.list_physical_devices("GPU"))
print(f"TensorFlow {tf.__version__}, Keras {keras.__version__} on {'GPU' if on_gpu else 'CPU'}, "
      f"profile {hp.profile}")

# %% tags=["data"]
x_train, y_train, x_test, y_test = imdb.load(hp)        # int32 token ids (N, 150), labels 1 = positive
n_train = len(x_train) // hp.batch_size * hp.batch_size  # full batches only, as in the other tabs
x_train, y_train = x_train[:n_train], y_train[:n_train]
print("train", x_train.shape, "test", x_test.shape)

# %% tags=["model"]
from keras import layers


def uniform():   # one initializer per tensor: an unseeded instance used twice repeats its values
    return keras.initializers.RandomUniform(-hp.init_scale, hp.init_scale)


model = keras.Sequential([                               # biases start at 0 (Keras' default)
    keras.Input(shape=(hp.max_length,), dtype="int32"),
    layers.Embedding(hp.vocabulary_size, hp.embedding_size, embeddings_initializer=uniform()),
    # With its default settings, GRU runs cuDNN's fused kernel on a GPU; on a CPU a loop of cells.
    # Its default reset_after=True is the convention of the other tabs (cuDNN's).
    layers.GRU(hp.hidden_size, kernel_initializer=uniform(), recurrent_initializer=uniform()),
    layers.Dense(2, kernel_initializer=uniform()),       # logits
])
model.compile(
    # Keras' default epsilon is 1e-7: use the original's 1e-8.
    optimizer=keras.optimizers.Adam(learning_rate=hp.learning_rate, beta_1=hp.beta_1,
                                    beta_2=hp.beta_2, epsilon=hp.epsilon),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
)
fused_kernel = "yes (cuDNN)" if on_gpu else "no (CPU: a loop of GRU cells)"
print(model.count_params(), "parameters; fused kernel:", fused_kernel)

# %% tags=["train"]
history = model.fit(x_train, y_train, batch_size=hp.batch_size, epochs=hp.epochs, shuffle=hp.shuffle, verbose=0)
for epoch, loss in enumerate(history.history["loss"], 1):
    print(f"epoch {epoch}: mean loss {loss:.3f}")

# %% tags=["infer"]
logits = model.predict(x_test, batch_size=hp.batch_size, verbose=0)
accuracy = float(np.mean(logits.argmax(axis=1) == y_test))
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_train, fused_kernel=fused_kernel)
