"""Neutral ResNet-50 weights <-> the PaddlePaddle snippet's paddle.vision ResNet-50 (fc replaced by Identity).

paddle.vision names its layers as torchvision does (conv1, bn1, layer1.0.conv1, ..., layerN.0.downsample.0/1);
only batch normalisation's running statistics are called `_mean` and `_variance`.
"""
import numpy as np
import paddle

RENAMED = {"running_mean": "_mean", "running_var": "_variance"}   # neutral (torchvision) -> Paddle


def _paddle_name(name):
    stem, _, leaf = name.rpartition(".")
    return f"{stem}.{RENAMED.get(leaf, leaf)}"


def load(ns, weights, x):
    state = ns["model"].state_dict()
    with paddle.no_grad():
        for name, value in weights.items():
            state[_paddle_name(name)].set_value(np.ascontiguousarray(value))


def read(ns):
    neutral = {value: key for key, value in RENAMED.items()}
    out = {}
    for name, value in ns["model"].state_dict().items():
        stem, _, leaf = name.rpartition(".")
        out[f"{stem}.{neutral.get(leaf, leaf)}"] = value.numpy().copy()
    return out


def forward(ns, x):
    with paddle.no_grad():
        return ns["model"](paddle.to_tensor(x)).numpy()
