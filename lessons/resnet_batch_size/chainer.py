# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # ResNet-50 throughput against batch size, in Chainer

# %% tags=["setup"]
import chainer
import chainer.links as L
import numpy as np

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("resnet_batch_size")
np.random.seed(hp.seed)                                  # Chainer's initialisers draw from numpy
try:
    import cupy as xp
    device = chainer.get_device("@cupy:0")
except ImportError:
    xp, device = np, chainer.get_device("@numpy")
images = device.send(random_images.load(hp, layout="NCHW"))   # channels first
model = L.ResNet50Layers(pretrained_model=None)          # random weights: nothing is downloaded here
model.to_device(device)


# %% tags=["variants"]
def extractor(batch_size):
    """All the images through the model, `batch_size` at a time, as the benchmark's loop."""
    batches = [images[i:i + batch_size] for i in range(0, len(images), batch_size)]

    def extract():
        # train=False: batch-norm uses its running statistics; no_backprop_mode: no graph is kept.
        with chainer.using_config("train", False), chainer.no_backprop_mode():
            for batch in batches:
                model(batch, layers=["pool5"])
        if xp is not np:
            device.device.synchronize()                  # wait for the GPU before the clock stops
    return extract


variants = {f"batch_{size}": extractor(size) for size in hp.batch_sizes}

# %% tags=["measure"]
# memory=True: each call's extra peak resident memory, next to its time.
lesson.compare(hp, variants, memory=True, per_second={"images": {name: len(images) for name in variants}})
