# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # Fused RNN layers, in TensorFlow (Keras 3)

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import keras
import numpy as np
import tensorflow as tf
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
            model.train_on_batch(x_train[rows], y_train[rows])   # one compiled step (a tf.function)
    return train


# %% tags=["variants"]
stepped = classifier(layers.RNN(layers.GRUCell(hp.hidden_size)))   # the generic loop over a cell
# GRU runs cuDNN's fused kernel when a GPU is there; on a CPU it falls back to the same loop.
fused = classifier(layers.GRU(hp.hidden_size))
fused.set_weights(stepped.get_weights())                # the same weights (both reset_after=True)
max_difference = float(np.abs(stepped.predict(x_test, verbose=0) - fused.predict(x_test, verbose=0)).max())
print(f"largest difference between the two models' logits: {max_difference:.2e}")
print("GPU:", bool(tf.config.list_physical_devices("GPU")))

# %% tags=["measure"]
lesson.compare(hp, {"stepped": trainer(stepped), "fused": trainer(fused)},
               facts={"fused": {"max_difference": max_difference}})
