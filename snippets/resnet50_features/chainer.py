# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # ResNet-50 features with Chainer
# `chainer.links.ResNet50Layers`, read out at its `pool5` layer (after global average pooling).

# %% tags=["setup"]
# [imports]
import os

import chainer
import chainer.links as L
import numpy as np

from rosetta import report, settings
from rosetta.data import random_images

# [seeds]
hp = settings("resnet50_features")
np.random.seed(hp.seed)                                  # Chainer's initialisers draw from numpy
# [device]
try:
    import cupy as xp
    device = chainer.get_device("@cupy:0")
except ImportError:
    xp, device = np, chainer.get_device("@numpy")
chainer.config.autotune = True                           # cuDNN autotune (Chainer's default is off)
# float32, not TF32: Chainer has no switch for cuDNN's default; the row's environment sets NVIDIA_TF32_OVERRIDE=0.
tf32 = "TF32 off" if os.environ.get("NVIDIA_TF32_OVERRIDE") == "0" else "TF32 allowed"
math_mode = f"float32 ({tf32}), cuDNN autotune on" if xp is not np else "float32"
print(f"Chainer {chainer.__version__} on {device}, {math_mode}, profile {hp.profile}, {hp.weights} weights")

# %% tags=["data"]
images = device.send(random_images.load(hp, layout="NCHW"))   # channels first
batches = [images[i:i + hp.batch_size] for i in range(0, len(images), hp.batch_size)]
print(len(batches), "batches of", batches[0].shape)

# %% tags=["model"]
# [network] ResNet50Layers is "v1", converted from the original Caffe model. pretrained_model="auto" reads
# $CHAINER_DATASET_ROOT/pfnet/chainer/models/ResNet-50-model.npz, converting it once from the
# Caffe file; its licence means that file is downloaded by hand (offline: ROSETTA_WEIGHTS=random).
model = L.ResNet50Layers(pretrained_model="auto" if hp.weights == "pretrained" else None)
model.to_device(device)


# [warm-up]
def extract(batch):
    # train=False: batch-norm uses its running statistics; no_backprop_mode: no graph is kept.
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        return model(batch, layers=["pool5"])["pool5"].array


warm = extract(batches[0])                               # warm-up: the timed batches' shape, run once
print("features", warm.shape)

# %% tags=["infer"]
features = xp.concatenate([extract(batch) for batch in batches[1:]])
if xp is not np:
    device.device.synchronize()                          # wait for the GPU before the clock stops
print("features", features.shape)
report(images=features.shape[0], feature_size=features.shape[1])
