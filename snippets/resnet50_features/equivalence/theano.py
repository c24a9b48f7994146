"""Neutral ResNet-50 weights <-> the Theano snippet's shared variables (written in the snippet: no zoo).

The snippet keeps its shared variables in `params`, a dict under torchvision's names (conv1.weight,
bn1.running_mean, layer1.0.downsample.0.weight, ...), in the neutral layouts: conv kernels
(out, in, h, w), computed as a cross-correlation (filter_flip=False), and batch norm's weight, bias,
running_mean and running_var. Loading is set_value; the compiled `extract` reads them at its next call.
"""
import numpy as np


def load(ns, weights, x):
    params = ns["params"]
    missing = set(weights) ^ set(params)
    if missing:
        raise KeyError(f"neutral and snippet names differ: {sorted(missing)[:5]}")
    for name, value in weights.items():
        params[name].set_value(np.asarray(value, dtype=params[name].dtype))


def read(ns):
    return {name: p.get_value().copy() for name, p in ns["params"].items()}


def forward(ns, x):
    return ns["extract"](x)                              # channels first, as neutral
