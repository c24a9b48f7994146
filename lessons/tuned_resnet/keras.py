# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # ResNet-50 features, as written and tuned, in Keras 3 (on each backend)
# Keras' one speed-up switch is its compiler, `compile(jit_compile=...)`, whose default "auto" each
# backend resolves its own way: beside "auto", the other setting (True where "auto" is off, False where on).

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
backend = keras.backend.backend()                       # "tensorflow", "jax" or "torch", from KERAS_BACKEND
on_gpu = any(name in str(keras.ops.zeros(()).device).lower() for name in ("gpu", "cuda"))
# The snippet's layout: channels first on a GPU and on PyTorch (Keras' torch backend copies channels-last
# maps around every convolution), channels last on TensorFlow's and JAX's CPU kernels.
layout = "channels_first" if on_gpu or backend == "torch" else "channels_last"
keras.config.set_image_data_format(layout)
images = random_images.load(hp, layout="NCHW" if layout == "channels_first" else "NHWC")
check, *batches = np.split(images, len(images) // hp.batch_size)   # the first checks the variants, the rest are timed


def resnet50():
    # Random weights (weights=None): nothing is downloaded here.
    return keras.applications.ResNet50(weights=None, include_top=False, pooling="avg", input_shape=images.shape[1:])


def extractor(forward):
    """The snippet's timed loop: one predict_on_batch per batch (numpy out: synchronised)."""
    def extract():
        for batch in batches:
            forward(batch)
    return extract


as_written, twin = resnet50(), resnet50()
twin.set_weights(as_written.get_weights())              # the same weights in both

# %% tags=["variants"]
# As written: jit_compile="auto", as the snippet compiles. On JAX that is jax.jit, always (XLA); on
# TensorFlow, XLA on a GPU only (on a CPU: a tf.function graph of TensorFlow's own kernels); on
# PyTorch, no compiler.
as_written.compile(optimizer=None, jit_compile="auto")
models = {"as_written": as_written}
if not as_written.jit_compile:
    # jit_compile=True: the inference function compiled once, in its first call: XLA on TensorFlow, torch.compile
    # on PyTorch. There Keras' torch.compile always uses Inductor (tens of seconds of code generation): where the
    # lesson asks for another backend (the smoke run's tracing-only "eager"), the variant is left out.
    if backend != "torch" or hp.torch_compile_backend == "inductor":
        twin.compile(optimizer=None, jit_compile=True)
        models["compiled"] = twin
else:
    # jit_compile=False: no compiler. On JAX every layer's operations then run one by one from Python.
    twin.compile(optimizer=None, jit_compile=False)
    models["uncompiled"] = twin
print(backend, "jit_compile:", {name: model.jit_compile for name, model in models.items()})
forwards = {name: model.predict_on_batch for name, model in models.items()}

# %% tags=["measure"]
facts, reference = {}, None
for name, forward in forwards.items():                  # the first call (compilation included), timed once
    started = time.perf_counter()
    features = forward(check)
    facts[name] = {"first_call_seconds": time.perf_counter() - started}
    reference = features if reference is None else reference
    facts[name]["relative_difference"] = float(np.abs(features - reference).max() / np.abs(reference).max())
lesson.compare(hp, {name: extractor(forward) for name, forward in forwards.items()}, facts=facts)
