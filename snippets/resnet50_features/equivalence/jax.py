"""Neutral ResNet-50 weights <-> the Flax NNX snippet's ResNet50 (written in the snippet: no zoo).

The snippet names its layers as torchvision does (conv1, bn1; in each Bottleneck conv1..3, bn1..3
and downsample), with the stages in model.stages (neutral layer1..layer4) and the blocks and the
downsample pair inside nnx.Sequential (.layers). Flax stores conv kernels (h, w, in, out) and
calls batch norm's tensors scale, bias, mean and var.
"""
import jax.numpy as jnp
import numpy as np

BATCH_NORM = {"weight": "scale", "bias": "bias", "running_mean": "mean", "running_var": "var"}


def _module(model, prefix):
    """The Flax module of a neutral prefix such as "conv1" or "layer2.0.downsample.1"."""
    parts = prefix.split(".")
    if parts[0].startswith("layer"):
        model = model.stages[int(parts[0][5:]) - 1].layers[int(parts[1])]
        parts = parts[2:]
    if parts[0] == "downsample":
        return model.downsample.layers[int(parts[1])]
    return getattr(model, parts[0])


def _variable(model, name):
    """(the nnx.Variable of a neutral tensor name, is it a conv kernel?)."""
    prefix, tensor = name.rsplit(".", 1)
    module = _module(model, prefix)
    if tensor == "weight" and module.__class__.__name__ == "Conv":
        return module.kernel, True
    return getattr(module, BATCH_NORM[tensor]), False


def load(ns, weights, x):
    for name, value in weights.items():
        variable, kernel = _variable(ns["model"], name)
        variable.value = jnp.asarray(value.transpose(2, 3, 1, 0) if kernel else value)   # -> (h, w, in, out)
    ns["neutral_names"] = list(weights)


def read(ns):
    out = {}
    for name in ns["neutral_names"]:
        variable, kernel = _variable(ns["model"], name)
        value = np.array(variable.value)
        out[name] = value.transpose(3, 2, 0, 1) if kernel else value
    return out


def forward(ns, x):
    return np.asarray(ns["extract"](ns["model"], jnp.asarray(x.transpose(0, 2, 3, 1))))   # channels last
