# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # ResNet-50 features, as written and tuned, in Chainer
# Chainer's CPU speed-up, iDeep (`chainer.config.use_ideep`), needs the `ideep4py` package, which
# has no build for this Python, so on a CPU its convolutions are NumPy's. What is left to switch
# off is its per-call type checking: ResNet-50 makes some 170 function calls per forward pass.

# %% tags=["setup"]
import time

import chainer
import chainer.links as L
import numpy as np

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("tuned_resnet")
np.random.seed(hp.seed)                                  # Chainer's initialisers draw from numpy
try:
    import cupy as xp
    device = chainer.get_device("@cupy:0")
except ImportError:
    xp, device = np, chainer.get_device("@numpy")
images = device.send(random_images.load(hp, layout="NCHW"))   # channels first
check, *batches = [images[i:i + hp.batch_size] for i in range(0, len(images), hp.batch_size)]
model = L.ResNet50Layers(pretrained_model=None)          # random weights: nothing is downloaded here
model.to_device(device)


def features(batch):
    # The snippet's extraction: train=False (batch-norm's running statistics), no graph kept.
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        return model(batch, layers=["pool5"])["pool5"].array


def extractor(type_check):
    """The snippet's timed loop, every batch through the model, with Chainer's type checks on or off."""
    def extract():
        with chainer.using_config("type_check", type_check):
            for batch in batches:
                features(batch)
        if xp is not np:
            device.device.synchronize()                  # wait for the GPU before the clock stops
    return extract


# %% tags=["variants"]
# As written: every Chainer function checks its inputs' shapes and dtypes before it runs.
# no_type_check: type_check = False skips those checks (CHAINER_TYPE_CHECK=0 does it for a whole process).
variants = {"as_written": extractor(True), "no_type_check": extractor(False)}

# %% tags=["measure"]
facts, reference = {}, None
for name, type_check in {"as_written": True, "no_type_check": False}.items():
    started = time.perf_counter()                        # the first call, timed once
    with chainer.using_config("type_check", type_check):
        out = chainer.backends.cuda.to_cpu(features(check))
    facts[name] = {"first_call_seconds": time.perf_counter() - started}
    reference = out if reference is None else reference
    facts[name]["relative_difference"] = float(abs(out - reference).max() / abs(reference).max())
lesson.compare(hp, variants, facts=facts)
