# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # Batch normalisation at inference, in Chainer

# %% tags=["setup"]
import chainer
import chainer.links as L
import numpy as np

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("batchnorm_inference")
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
# Running statistics as training leaves them: batches through the model in training mode, which updates them.
noise = np.random.default_rng(hp.seed)
for _ in range(hp.calibration):
    with chainer.using_config("train", True), chainer.no_backprop_mode():
        model(device.send(noise.standard_normal(check.shape, dtype=np.float32)), layers=["pool5"])


# %% tags=["variants"]
def features(batch, training):
    # Chainer's mode is a global setting, not a property of the model: config.train (True by default!)
    # makes batch-norm use the batch's statistics and update the running ones; the snippet sets it False.
    with chainer.using_config("train", training), chainer.no_backprop_mode():
        return model(batch, layers=["pool5"])["pool5"].array


def batch_dependence(training):
    """How far one image's features move when the rest of its batch changes: largest difference / largest feature."""
    alone_with = features(check, training)[0]
    with_others = features(xp.concatenate([check[:1], batches[0][1:]]), training)[0]
    return float(abs(alone_with - with_others).max() / abs(alone_with).max())


# (Measured in inference mode first: every call in training mode moves the running statistics a little.)
dependence = {"inference_mode": batch_dependence(False), "training_mode": batch_dependence(True)}
print("largest relative change of one image's features with other batch-mates:", dependence)


def extractor(training):
    def extract():
        for batch in batches:
            features(batch, training)
        if xp is not np:
            device.device.synchronize()                  # wait for the GPU before the clock stops
    return extract


# %% tags=["measure"]
lesson.compare(hp, {"inference_mode": extractor(False), "training_mode": extractor(True)},
               facts={name: {"batch_dependence": value} for name, value in dependence.items()})
