"""Neutral CNN weights <-> the Keras snippet's Sequential model.

Keras stores conv kernels (h, w, in, out) and dense kernels (in, out) on every backend. Its Flatten
orders fc1's inputs (h, w, c) instead of (c, h, w) in either layout: channels first, it transposes
to channels last before flattening, so that the weights do not depend on the layout.
"""
import keras
import numpy as np

LAYERS = ("conv1", "conv2", "conv3", "conv4", "fc1", "fc2")


def _layers(model):
    convs = [layer for layer in model.layers if isinstance(layer, keras.layers.Conv2D)]
    denses = [layer for layer in model.layers if isinstance(layer, keras.layers.Dense)]
    return dict(zip(LAYERS, convs + denses))


def _channels_last():
    return keras.config.image_data_format() == "channels_last"     # the snippet chose it in its setup


def _fc1_rows(channels=100, height=8, width=8):
    """For each Keras row of fc1 (h, w, c order), the neutral row (c, h, w order)."""
    c, h, w = np.meshgrid(np.arange(channels), np.arange(height), np.arange(width), indexing="ij")
    neutral_index = (c * height * width + h * width + w)          # (c, h, w) grid of neutral rows
    return neutral_index.transpose(1, 2, 0).ravel()               # read in (h, w, c) order


def load(ns, weights, x):
    for name, layer in _layers(ns["model"]).items():
        kernel = weights[f"{name}.kernel"]
        if name.startswith("conv"):
            kernel = kernel.transpose(2, 3, 1, 0)                  # (out, in, h, w) -> (h, w, in, out)
        elif name == "fc1":
            kernel = kernel[_fc1_rows()]
        layer.set_weights([kernel, weights[f"{name}.bias"]])


def read(ns):
    out = {}
    for name, layer in _layers(ns["model"]).items():
        kernel, bias = layer.get_weights()                         # NumPy copies, on every backend
        if name.startswith("conv"):
            kernel = kernel.transpose(3, 2, 0, 1)
        elif name == "fc1":
            restored = np.empty_like(kernel)
            restored[_fc1_rows()] = kernel
            kernel = restored
        out[f"{name}.kernel"], out[f"{name}.bias"] = kernel, bias
    return out


def _images(x):
    return x.transpose(0, 2, 3, 1) if _channels_last() else x   # neutral is (N, C, H, W)


def forward(ns, x):
    return keras.ops.convert_to_numpy(ns["model"](_images(x), training=False))


def train_step(ns, x, y):
    # fit() runs this same step on every batch (compiled where the backend compiles it).
    return ns["model"].train_on_batch(_images(x), y)
