# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # Softmax twice, in TensorFlow (Keras 3)

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import keras
import numpy as np
from keras import layers

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("softmax_twice")
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NHWC")
# An MLP reads each image as one vector of 32 × 32 × 3 = 3072 values.
x_train, x_test = x_train.reshape(len(x_train), -1), x_test.reshape(len(x_test), -1)


def mlp(activation):                                 # Keras' default init: Glorot-uniform, zero biases
    return keras.Sequential([
        keras.Input(shape=(3072,)),
        layers.Dense(hp.hidden, activation="relu"),
        layers.Dense(hp.hidden, activation="relu"),
        layers.Dense(10, activation=activation),
    ])


def train_and_test(model):
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=hp.learning_rate, momentum=hp.momentum),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))   # softmax inside
    history = model.fit(x_train, y_train, batch_size=hp.batch_size, epochs=hp.epochs, verbose=0)
    outputs = model.predict(x_test, batch_size=500, verbose=0)   # a softmax keeps the largest output largest
    return {"accuracy": float(np.mean(outputs.argmax(axis=1) == y_test)), "loss": history.history["loss"][-1]}


# %% tags=["variants"]
def softmax_once(seed):
    keras.utils.set_random_seed(seed)                # same starting weights and batch order in both variants
    return train_and_test(mlp(activation=None))      # logits out: the loss applies the softmax


def softmax_twice(seed):
    keras.utils.set_random_seed(seed)
    # The mistake: probabilities out, from_logits=True in the loss. Keras notices a softmax output,
    # warns, and computes the loss from the logits that went into the softmax.
    return train_and_test(mlp(activation="softmax"))


# %% tags=["measure"]
lesson.compare(hp, {"softmax_once": softmax_once, "softmax_twice": softmax_twice})
