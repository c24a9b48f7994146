# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # The CNN's training step, as written and tuned, in TensorFlow (Keras 3)
# Keras' layout is the snippet's (channels-last on a CPU, where TensorFlow's kernels need it):
# the tuned variant is XLA.

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import time

import keras
import tensorflow as tf
from keras import layers

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("tuned_cnn")
keras.utils.set_random_seed(hp.seed)
on_gpu = bool(tf.config.list_physical_devices("GPU"))
# As in the snippet: cuDNN is fastest channels-first; TensorFlow's CPU kernels only run channels-last.
keras.config.set_image_data_format("channels_first" if on_gpu else "channels_last")
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW" if on_gpu else "NHWC")


def vggish():
    """The CNN benchmark's network, copied from its snippet."""
    return keras.Sequential([
        keras.Input(shape=x_train.shape[1:]),
        layers.Conv2D(50, 3, padding="same", activation="relu"),
        layers.Conv2D(50, 3, padding="same"),
        layers.MaxPooling2D(2),
        layers.Activation("relu"),
        layers.Dropout(hp.dropout_conv),
        layers.Conv2D(100, 3, padding="same", activation="relu"),
        layers.Conv2D(100, 3, padding="same"),
        layers.MaxPooling2D(2),
        layers.Activation("relu"),
        layers.Dropout(hp.dropout_conv),
        layers.Flatten(),
        layers.Dense(512, activation="relu"),
        layers.Dropout(hp.dropout_dense),
        layers.Dense(10),                                # logits
    ])


def trainer(model):
    """The snippet's fit() call: one epoch of `batches` steps per call."""
    def train():
        model.fit(x_train, y_train, batch_size=hp.batch_size, epochs=1, shuffle=hp.shuffle, verbose=0)
    return train


first = vggish()
second = vggish()
second.set_weights(first.get_weights())                 # the same starting weights in both


# %% tags=["variants"]
def sgd():
    return keras.optimizers.SGD(learning_rate=hp.learning_rate, momentum=hp.momentum)


loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

# As written: compile() leaves jit_compile at "auto", which Keras resolves to False on a machine
# without a GPU (and to True with one): fit() then runs the step as a tf.function graph of
# TensorFlow's own kernels.
first.compile(optimizer=sgd(), loss=loss)
as_written = trainer(first)

# jit_compile=True: XLA compiles the whole step (forward, gradients, update) into fused kernels,
# once, in the first call.
second.compile(optimizer=sgd(), loss=loss, jit_compile=True)
compiled = trainer(second)
print("jit_compile:", first.jit_compile, "(as written),", second.jit_compile, "(compiled)")

# %% tags=["measure"]
variants = {"as_written": as_written, "compiled": compiled}
first_call = {}                                          # the first call, compilation included, timed once
for name, train in variants.items():
    started = time.perf_counter()
    train()
    first_call[name] = {"first_call_seconds": time.perf_counter() - started}
lesson.compare(hp, variants, facts=first_call)
