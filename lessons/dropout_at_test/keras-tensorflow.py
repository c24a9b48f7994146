# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # Dropout at test time, in TensorFlow (Keras 3)

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import keras
import numpy as np
from keras import layers

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("dropout_at_test")
keras.utils.set_random_seed(hp.seed)                 # also seeds each Dropout layer's own generator
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NHWC")
# An MLP reads each image as one vector of 32 × 32 × 3 = 3072 values.
x_train, x_test = x_train.reshape(len(x_train), -1), x_test.reshape(len(x_test), -1)

model = keras.Sequential([                           # Keras' default init: Glorot-uniform, zero biases
    keras.Input(shape=(3072,)),
    layers.Dense(hp.hidden, activation="relu"), layers.Dropout(hp.dropout),
    layers.Dense(hp.hidden, activation="relu"), layers.Dropout(hp.dropout),
    layers.Dense(10),
])
model.compile(optimizer=keras.optimizers.SGD(learning_rate=hp.learning_rate, momentum=hp.momentum),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
history = model.fit(x_train, y_train, batch_size=hp.batch_size, epochs=hp.epochs, verbose=0)   # dropout on in fit()


# %% tags=["variants"]
def accuracy(logits):
    return {"accuracy": float(np.mean(np.argmax(logits, axis=1) == y_test))}


def dropout_off():
    # Inference mode is Keras' default outside fit(): model(x), model(x, training=False) and predict().
    return accuracy(model(x_test, training=False))


def dropout_on():
    # The mistake: training=True, e.g. copied from a custom training step. Keras' Dropout layers draw
    # from their own generators (seeded in setup), so each round gets new masks without a seed here.
    return accuracy(model(x_test, training=True))


# %% tags=["measure"]
lesson.compare(hp, {"dropout_off": dropout_off, "dropout_on": dropout_on})
