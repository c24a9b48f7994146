# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Keras 3 · TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # ResNet-50 features with Keras 3
# `keras.applications.ResNet50` without its classifier, global average pooling at the end. One program
# for three backends: `KERAS_BACKEND` (tensorflow, jax or torch) chooses which one runs it.

# %% tags=["setup"]
# [imports]
import importlib
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import keras
import numpy as np

from rosetta import report, settings
from rosetta.data import random_images

# [seeds]
hp = settings("resnet50_features")
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
# Layout: cuDNN is fastest channels first; TensorFlow's CPU kernels only run channels last; JAX's XLA compiles
# either (channels last ran faster on a CPU). Keras' PyTorch backend copies channels-last maps twice around
# every convolution: on ResNet-50's large maps channels first, PyTorch's own, is faster on a CPU too.
layout = "channels_first" if on_gpu or backend == "torch" else "channels_last"
keras.config.set_image_data_format(layout)           # keras.applications builds its models in this layout
print(f"Keras {keras.__version__} on {backend} {importlib.import_module(backend).__version__}, "
      f"{'GPU' if on_gpu else 'CPU'}, {math_mode}, {layout}, profile {hp.profile}, {hp.weights} weights")

# %% tags=["data"]
images = random_images.load(hp, layout="NCHW" if layout == "channels_first" else "NHWC")
batches = [images[i:i + hp.batch_size] for i in range(0, len(images), hp.batch_size)]
print(len(batches), "batches of", batches[0].shape)

# %% tags=["model"]
# [network] Keras' ResNet50 is "v1": the stride-2 of each downsampling block sits in the first 1x1 conv.
# weights="imagenet" downloads once into ~/.keras/models (offline: ROSETTA_WEIGHTS=random).
model = keras.applications.ResNet50(weights="imagenet" if hp.weights == "pretrained" else None,
                                    include_top=False, pooling="avg",
                                    input_shape=images.shape[1:])
# [warm-up]
# Nothing to train: compile() only says how predict compiles. jit_compile="auto" is Keras' default, written out: XLA
# on TensorFlow (on a GPU) and JAX, eager on PyTorch.
model.compile(optimizer=None, jit_compile="auto")
# predict_on_batch() runs the inference function on one batch (training=False: batch-norm uses its moving
# averages), compiled on TensorFlow and JAX. Warm-up: one batch of the timed shape, through the same call.
warm = model.predict_on_batch(batches[0])
print("features", warm.shape)

# %% tags=["infer"]
# One call per batch, as in the other tabs. model.predict(images) would batch them itself; with TensorFlow
# on a 2-core CPU its first call after the warm-up sometimes took 1.9 times as long.
features = np.concatenate([model.predict_on_batch(batch) for batch in batches[1:]])   # numpy: synchronised
print("features", features.shape)
report(images=features.shape[0], feature_size=features.shape[1])
