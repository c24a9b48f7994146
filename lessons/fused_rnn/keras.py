# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # Fused RNN layers, in Keras 3 (on each backend)

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import keras
import numpy as np
from keras import layers

from rosetta import lesson
from rosetta.data import imdb

hp = lesson.settings("fused_rnn")
keras.utils.set_random_seed(hp.seed)
x_train, y_train, x_test, _ = imdb.load(hp)             # token ids (N, max_length), labels 1 = positive
x_test = x_test[:hp.batch_size]


def classifier(recurrent):
    """The RNN benchmark's model: embedding → GRU (its last output) → dense 2."""
    model = keras.Sequential([
        keras.Input(shape=(hp.max_length,), dtype="int32"),
        layers.Embedding(hp.vocabulary_size, hp.embedding_size),
        recurrent,
        layers.Dense(2),                                 # logits
    ])
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=hp.learning_rate),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def trainer(model):
    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            model.train_on_batch(x_train[rows], y_train[rows])   # one step, compiled as the backend's default
    return train


# %% tags=["variants"]
stepped = classifier(layers.RNN(layers.GRUCell(hp.hidden_size)))   # the generic loop over a cell
# GRU runs cuDNN's fused kernel on a GPU (TensorFlow, JAX and PyTorch backends alike); on a CPU each
# backend's own loop: tf.while_loop, jax.lax.scan, and on PyTorch a Python loop (the keras_gru_on_torch lesson).
fused = classifier(layers.GRU(hp.hidden_size))
fused.set_weights(stepped.get_weights())                # the same weights (both reset_after=True)
max_difference = float(np.abs(stepped.predict(x_test, verbose=0) - fused.predict(x_test, verbose=0)).max())
print(f"largest difference between the two models' logits: {max_difference:.2e}")
print(keras.backend.backend(), "on", keras.ops.zeros(()).device)

# %% tags=["measure"]
lesson.compare(hp, {"stepped": trainer(stepped), "fused": trainer(fused)},
               facts={"fused": {"max_difference": max_difference}})
