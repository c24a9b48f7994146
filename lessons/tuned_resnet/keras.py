# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # ResNet-50 features, as written and tuned, in TensorFlow (Keras 3)
# Keras' ResNet50 is channels-last already and `predict_on_batch` already runs a compiled
# `tf.function`: the tuned variant is XLA.

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import time

import keras
import numpy as np

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("tuned_resnet")
keras.utils.set_random_seed(hp.seed)
images = random_images.load(hp, layout="NHWC")           # channels last
check, *batches = np.split(images, len(images) // hp.batch_size)   # the first checks the variants, the rest are timed


def resnet50():
    # Random weights (weights=None): nothing is downloaded here.
    return keras.applications.ResNet50(weights=None, include_top=False, pooling="avg",
                                       input_shape=(hp.image_size, hp.image_size, 3))


def extractor(forward):
    """The snippet's timed loop: one predict_on_batch per batch (numpy out: synchronised)."""
    def extract():
        for batch in batches:
            forward(batch)
    return extract


model = resnet50()
twin = resnet50()
twin.set_weights(model.get_weights())                   # the same weights in both

# %% tags=["variants"]
# As written: no compile(), so jit_compile stays "auto", which Keras resolves to False on a
# machine without a GPU (and to True with one): predict_on_batch then runs a tf.function graph
# of TensorFlow's own kernels.
forwards = {"as_written": model.predict_on_batch}

# jit_compile=True: the inference function is compiled by XLA, once, in its first call.
twin.compile(jit_compile=True)
forwards["compiled"] = twin.predict_on_batch
print("jit_compile:", model.jit_compile, "(as written),", twin.jit_compile, "(compiled)")

# %% tags=["measure"]
facts, reference = {}, None
for name, forward in forwards.items():                  # the first call (compilation included), timed once
    started = time.perf_counter()
    features = forward(check)
    facts[name] = {"first_call_seconds": time.perf_counter() - started}
    reference = features if reference is None else reference
    facts[name]["relative_difference"] = float(np.abs(features - reference).max() / np.abs(reference).max())
lesson.compare(hp, {name: extractor(forward) for name, forward in forwards.items()}, facts=facts)
