# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # cuDNN autotuning for fixed shapes, in TensorFlow (Keras 3)

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
# TensorFlow's switch is an environment variable, set before TensorFlow runs a convolution. "1" is
# its default: time cuDNN's algorithms at the first call for each shape and keep the fastest.
os.environ["TF_CUDNN_USE_AUTOTUNE"] = "1"
import keras
import tensorflow as tf

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("cudnn_autotune")
keras.utils.set_random_seed(hp.seed)
on_gpu = bool(tf.config.list_physical_devices("GPU"))
print(f"TF_CUDNN_USE_AUTOTUNE={os.environ['TF_CUDNN_USE_AUTOTUNE']} on {'GPU' if on_gpu else 'CPU'}"
      + ("" if on_gpu else ": no cuDNN, so the variable changes nothing here"))
layout = "channels_first" if on_gpu else "channels_last"  # TensorFlow's CPU kernels only run channels-last
keras.config.set_image_data_format(layout)
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW" if on_gpu else "NHWC")
x_train, y_train = x_train[:hp.batches * hp.batch_size], y_train[:hp.batches * hp.batch_size]

layers = keras.layers
model = keras.Sequential([                               # the CNN benchmark's network
    keras.Input(shape=x_train.shape[1:]),
    layers.Conv2D(50, 3, padding="same", activation="relu"),
    layers.Conv2D(50, 3, padding="same"), layers.MaxPooling2D(2), layers.Activation("relu"),
    layers.Dropout(hp.dropout_conv),
    layers.Conv2D(100, 3, padding="same", activation="relu"),
    layers.Conv2D(100, 3, padding="same"), layers.MaxPooling2D(2), layers.Activation("relu"),
    layers.Dropout(hp.dropout_conv),
    layers.Flatten(), layers.Dense(512, activation="relu"), layers.Dropout(hp.dropout_dense), layers.Dense(10),
])
# jit_compile=False: on a GPU, Keras would otherwise compile the step with XLA, whose convolutions
# are tuned by XLA's own autotuner (XLA_FLAGS=--xla_gpu_autotune_level), not by this variable.
model.compile(optimizer=keras.optimizers.SGD(learning_rate=hp.learning_rate, momentum=hp.momentum),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=False)


# %% tags=["variants"]
# Only one variant can run in this process. TensorFlow keeps each convolution's chosen algorithm in
# one table per process, keyed by the shapes: whichever variant ran a shape first would decide for
# both. And enable_op_determinism(), the one switch that exists at run time, cannot be turned off
# again and restricts the choice to deterministic algorithms rather than turning the search off.
# So the heuristic variant would need TF_CUDNN_USE_AUTOTUNE=0 in a process of its own.
def autotuned():
    model.fit(x_train, y_train, batch_size=hp.batch_size, epochs=1, shuffle=False, verbose=0)


# %% tags=["measure"]
lesson.compare(hp, {"autotuned": autotuned})
