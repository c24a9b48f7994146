# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # ResNet-50 v1 against v1.5, in Chainer
# Chainer's `ResNet50Layers` has both: `downsample_fb=False` (its default, the original MSRA
# network, v1) and `downsample_fb=True` ("Facebook ResNet", torchvision's v1.5). Chainer has no FLOP
# counter: the FLOPs are PyTorch's tab's.

# %% tags=["setup"]
import chainer
import chainer.links as L
import numpy as np

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("resnet_v1_vs_v15")
np.random.seed(hp.seed)                                  # Chainer's initialisers draw from numpy
try:
    import cupy as xp
    device = chainer.get_device("@cupy:0")
except ImportError:
    xp, device = np, chainer.get_device("@numpy")
images = device.send(random_images.load(hp, layout="NCHW"))   # channels first
check, *batches = [images[i:i + hp.batch_size] for i in range(0, len(images), hp.batch_size)]


def features(model, batch):
    # The snippet's extraction: train=False (batch-norm's running statistics), no graph kept.
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        return model(batch, layers=["pool5"])["pool5"].array


def extractor(model):
    """The benchmark's timed loop: every batch through the model."""
    def extract():
        for batch in batches:
            features(model, batch)
        if xp is not np:
            device.device.synchronize()                  # wait for the GPU before the clock stops
    return extract


# %% tags=["variants"]
# In the first block of res3, res4 and res5, v1 strides in conv1 (the 1×1 convolution, which then
# skips three quarters of its input positions) and v1.5 in conv2 (the 3×3 after it).
v1 = L.ResNet50Layers(pretrained_model=None)             # random weights: nothing is downloaded here
v1_5 = L.ResNet50Layers(pretrained_model=None, downsample_fb=True)
v1_5.copyparams(v1)                                      # the same weights in both
for model in (v1, v1_5):
    model.to_device(device)
features_v1, features_v1_5 = features(v1, check), features(v1_5, check)
print("same feature shape:", features_v1.shape == features_v1_5.shape,
      f"- largest relative difference between them: "
      f"{float(abs(features_v1 - features_v1_5).max() / abs(features_v1_5).max()):.2f}")

# %% tags=["measure"]
lesson.compare(hp, {"v1_5": extractor(v1_5), "v1": extractor(v1)})
