# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # Input pipeline or slices of arrays in memory, in TensorFlow (Keras 3)

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import keras
import numpy as np
import tensorflow as tf

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("input_pipeline")
keras.utils.set_random_seed(hp.seed)
rng = np.random.default_rng(hp.seed)
x_train, y_train, _, _ = cifar10.load(hp, layout="NHWC")   # the whole subset in memory, as numpy arrays
n_batches = len(x_train) // hp.batch_size

# An MLP 3072-512-10: a step costs a few milliseconds, so the cost of feeding it shows.
model = keras.Sequential([keras.Input(shape=x_train.shape[1:]), keras.layers.Flatten(),
                          keras.layers.Dense(hp.hidden, activation="relu"), keras.layers.Dense(10)])
model.compile(optimizer=keras.optimizers.SGD(learning_rate=hp.learning_rate, momentum=hp.momentum),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))


# %% tags=["variants"]
def slicing():
    # Slices fed by hand go through train_on_batch: the same compiled step that fit() runs.
    # (fit() on numpy arrays is no alternative here: Keras 3 turns the arrays into a tf.data
    # pipeline of its own, which gathers a shuffled index per batch and prefetches.)
    order = rng.permutation(len(x_train))                # a new order each epoch
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        model.train_on_batch(x_train[rows], y_train[rows])


# tf.data shuffles the whole subset (a buffer as large as the data: a full permutation, new each
# epoch), batches, and prefetches in background threads while fit() trains.
dataset = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
           .shuffle(len(x_train), seed=hp.seed).batch(hp.batch_size, drop_remainder=True)
           .prefetch(tf.data.AUTOTUNE))


def pipeline():
    model.fit(dataset, epochs=1, shuffle=False, verbose=0)   # the dataset shuffles itself


# %% tags=["measure"]
# tf.data has no worker processes to turn off, so there is no pipeline_in_process variant here.
lesson.compare(hp, {"slicing": slicing, "pipeline": pipeline})
