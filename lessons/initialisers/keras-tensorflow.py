# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # Default initialisers against Glorot-uniform, in TensorFlow (Keras 3)

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import keras
import numpy as np
import tensorflow as tf
from keras import layers

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("initialisers")
tf.get_logger().setLevel("ERROR")                      # every run builds a fresh model: no warnings about retracing
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NHWC")
x_train, x_test = x_train.reshape(len(x_train), -1), x_test.reshape(len(x_test), -1)   # 3072 values each
n_train = len(x_train) // hp.batch_size * hp.batch_size      # full batches only, as in the other tabs
x_train, y_train = x_train[:n_train], y_train[:n_train]


def mlp(**initialisers):
    return keras.Sequential([
        keras.Input(shape=(3072,)),
        layers.Dense(hp.hidden_units, activation="relu", **initialisers),
        layers.Dense(hp.hidden_units, activation="relu", **initialisers),
        layers.Dense(10, **initialisers),                    # logits
    ])


def train_and_test(model):
    """SGD + momentum on the same batches, in order, every time; then the test accuracy."""
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=hp.learning_rate, momentum=hp.momentum),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x_train, y_train, batch_size=hp.batch_size, epochs=hp.epochs, shuffle=False, verbose=0)
    logits = model.predict(x_test, batch_size=1000, verbose=0)
    return {"accuracy": float(np.mean(logits.argmax(axis=1) == y_test))}


# %% tags=["variants"]
def default_model():
    # Dense's defaults: kernel_initializer="glorot_uniform", bias_initializer="zeros". Keras' default IS
    # Glorot-uniform, so the two variants draw the same weights for the same seed: the pair is a control.
    return mlp()


def glorot_model():
    return mlp(kernel_initializer="glorot_uniform", bias_initializer="zeros")   # U(±√(6 / (fan_in + fan_out)))


def default(seed):
    keras.utils.set_random_seed(seed)                    # the round's seed draws the initial weights
    return train_and_test(default_model())


def glorot(seed):
    keras.utils.set_random_seed(seed)
    return train_and_test(glorot_model())


for name, build in (("default", default_model), ("glorot", glorot_model)):
    kernel, bias = build().layers[0].get_weights()
    print(f"{name}: first layer's weights within ±{np.abs(kernel).max():.3f}, biases within ±{np.abs(bias).max():.3f}")

# %% tags=["measure"]
lesson.compare(hp, {"default": default, "glorot": glorot})
