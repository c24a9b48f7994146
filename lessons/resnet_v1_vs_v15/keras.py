# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # ResNet-50 v1 against v1.5, in Keras 3 (on each backend)
# `keras.applications.ResNet50` is v1; here v1.5 is made from its configuration by moving the
# strides the other way. Keras has no FLOP counter of its own: the FLOPs are PyTorch's tab's.

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import re

import keras
import numpy as np

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("resnet_v1_vs_v15")
keras.utils.set_random_seed(hp.seed)
# The benchmark's layout per backend: channels first on PyTorch (Keras' torch backend copies channels-last
# maps around every convolution), channels last on TensorFlow (its CPU kernels) and JAX.
layout = "channels_first" if keras.backend.backend() == "torch" else "channels_last"
keras.config.set_image_data_format(layout)           # keras.applications builds its models in this layout
images = random_images.load(hp, layout="NCHW" if layout == "channels_first" else "NHWC")
check, *batches = [images[i:i + hp.batch_size] for i in range(0, len(images), hp.batch_size)]


def extractor(model):
    """The benchmark's timed loop: every batch through the model (training=False; NumPy out: synchronised)."""
    def extract():
        for batch in batches:
            model.predict_on_batch(batch)
    return extract


# %% tags=["variants"]
v1 = keras.applications.ResNet50(weights=None, include_top=False, pooling="avg",   # random weights: nothing
                                 input_shape=images.shape[1:])                       # is downloaded here
# The first block of stages 3-5 downsamples: conv{3,4,5}_block1_1_conv (1×1) strides 2 in v1. v1.5 moves
# the stride to the block's 3×3 convolution, _2_conv (padding "same"); the shortcut, _0_conv, keeps its own.
config = v1.get_config()
for layer in config["layers"]:
    found = re.fullmatch(r"conv[345]_block1_([12])_conv", layer["config"]["name"])
    if found:
        layer["config"]["strides"] = (1, 1) if found.group(1) == "1" else (2, 2)
v1_5 = keras.Model.from_config(config)
v1_5.set_weights(v1.get_weights())                      # the same weights in both
for model in (v1, v1_5):
    model.compile(optimizer=None, jit_compile="auto")    # as in the benchmark: XLA on TensorFlow (GPU) and JAX
features_v1, features_v1_5 = v1.predict_on_batch(check), v1_5.predict_on_batch(check)   # compiles each
print("same feature shape:", features_v1.shape == features_v1_5.shape,
      f"- largest relative difference between them: "
      f"{np.abs(features_v1 - features_v1_5).max() / np.abs(features_v1_5).max():.2f}")

# %% tags=["measure"]
lesson.compare(hp, {"v1_5": extractor(v1_5), "v1": extractor(v1)})
