"""Plain-script twin of snippets/resnet50_features/chainer.py: pool5 features, timed after one warm-up batch."""
import json
import time

import chainer
import chainer.links as L
import numpy as np

from rosetta import settings
from rosetta.data import random_images

hp = settings("resnet50_features")
np.random.seed(hp.seed)                                  # Chainer's initialisers draw from numpy
try:
    import cupy as xp
    device = chainer.get_device("@cupy:0")
except ImportError:
    xp, device = np, chainer.get_device("@numpy")


def synchronize():
    if xp is not np:
        device.device.synchronize()


images = device.send(random_images.load(hp, layout="NCHW"))
batches = [images[i:i + hp.batch_size] for i in range(0, len(images), hp.batch_size)]

model = L.ResNet50Layers(pretrained_model="auto" if hp.weights == "pretrained" else None)
model.to_device(device)

with chainer.using_config("train", False), chainer.no_backprop_mode():
    model(batches[0], layers=["pool5"])
    synchronize()
    started = time.perf_counter()
    features = xp.concatenate([model(batch, layers=["pool5"])["pool5"].array for batch in batches[1:]])
    synchronize()
    seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": features.shape[0]}))
