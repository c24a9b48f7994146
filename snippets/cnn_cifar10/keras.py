# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Keras 3 · TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # CNN on CIFAR-10 with Keras 3
# The same network as a `keras.Sequential`, trained with `fit`. One program for three backends:
# `KERAS_BACKEND` (tensorflow, jax or torch) chooses which one runs it.

# %% tags=["setup"]
# [imports]
import importlib
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import keras
import numpy as np

from rosetta import report, settings
from rosetta.data import cifar10

# [seeds]
hp = settings("cnn_cifar10")
keras.utils.set_random_seed(hp.seed)                 # Python, NumPy and the backend's generator
# [device]
backend = keras.backend.backend()                    # "tensorflow", "jax" or "torch", from KERAS_BACKEND
# A new tensor's device in the backend's words: ".../device:GPU:0" (TensorFlow), "cuda:0" (JAX, PyTorch).
on_gpu = any(name in str(keras.ops.zeros(()).device).lower() for name in ("gpu", "cuda"))
# The GPU's math mode. Keras has no switch of its own: each backend's own, as in that framework's tab.
if backend == "tensorflow":
    import tensorflow as tf
    tf.config.experimental.enable_tensor_float_32_execution(False)   # float32, not TF32 (its default; XLA reads it too)
elif backend == "jax":
    import jax
    jax.config.update("jax_default_matmul_precision", "highest")     # float32, not TF32 (XLA's default on a GPU)
elif backend == "torch":
    import torch
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False   # float32, not TF32 (cuDNN's)
    torch.backends.cudnn.benchmark = True                            # cuDNN autotune (PyTorch's default is off)
math_mode = "float32 (TF32 off), autotune on" if on_gpu else "float32"
# Layout: cuDNN is fastest channels first; on a CPU, channels last. TensorFlow's CPU kernels only run that
# way, JAX's XLA compiles either, and Keras' PyTorch backend hands PyTorch's convolutions channels-last
# tensors in its torch.channels_last memory format, which oneDNN's CPU kernels prefer.
layout = "channels_first" if on_gpu else "channels_last"
keras.config.set_image_data_format(layout)
print(f"Keras {keras.__version__} on {backend} {importlib.import_module(backend).__version__}, "
      f"{'GPU' if on_gpu else 'CPU'}, {math_mode}, {layout}, profile {hp.profile}")

# %% tags=["data"]
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW" if layout == "channels_first" else "NHWC")
# fit() would also train a last partial batch: keep full batches only, as the other tabs do.
n_train = len(x_train) // hp.batch_size * hp.batch_size
x_train, y_train = x_train[:n_train], y_train[:n_train]
print("train", x_train.shape, "test", x_test.shape)

# %% tags=["model"]
# [network]
from keras import layers

# Keras' default kernel initializer is already Glorot-uniform with zero biases.
model = keras.Sequential([
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
    layers.Dense(10),                                    # logits
])
# [optimizer, loss]
model.compile(
    # Keras' momentum is the classic one: v = m*v - lr*g; w += v.
    optimizer=keras.optimizers.SGD(learning_rate=hp.learning_rate, momentum=hp.momentum),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    jit_compile="auto",   # Keras' default, written out: XLA on TensorFlow (on a GPU) and JAX, eager on PyTorch
)
print(model.count_params(), "parameters")

# %% tags=["train"]
# [batches, training-step]
# fit() shuffles every epoch (its own generator) and compiles its training step: a tf.function graph
# (TensorFlow), jax.jit (JAX); PyTorch runs it eagerly unless compile(jit_compile=True) (torch.compile).
history = model.fit(x_train, y_train, batch_size=hp.batch_size, epochs=hp.epochs, shuffle=hp.shuffle, verbose=0)
# [progress]
for epoch, loss in enumerate(history.history["loss"], 1):
    print(f"epoch {epoch}: mean loss {loss:.3f}")

# %% tags=["infer"]
# [predictions] predict() runs the layers in inference mode (dropout off) and returns NumPy arrays on every backend.
logits = model.predict(x_test, batch_size=hp.batch_size, verbose=0)
# [accuracy]
accuracy = float(np.mean(logits.argmax(axis=1) == y_test))
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_train)
