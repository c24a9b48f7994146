"""Neutral CNN weights <-> the Flax NNX snippet's VGGish.

Flax stores conv kernels (h, w, in, out) and dense kernels (in, out), and runs channels last,
so its flatten orders fc1's inputs (h, w, c) instead of (c, h, w): the adapter permutes those rows.
"""
import jax.numpy as jnp
import numpy as np

LAYERS = ("conv1", "conv2", "conv3", "conv4", "fc1", "fc2")


def _fc1_rows(channels=100, height=8, width=8):
    """For each Flax row of fc1 (h, w, c order), the neutral row (c, h, w order)."""
    c, h, w = np.meshgrid(np.arange(channels), np.arange(height), np.arange(width), indexing="ij")
    neutral_index = c * height * width + h * width + w            # (c, h, w) grid of neutral rows
    return neutral_index.transpose(1, 2, 0).ravel()               # read in (h, w, c) order


def load(ns, weights, x):
    model = ns["model"]
    for name in LAYERS:
        kernel = weights[f"{name}.kernel"]
        if name.startswith("conv"):
            kernel = kernel.transpose(2, 3, 1, 0)                  # (out, in, h, w) -> (h, w, in, out)
        elif name == "fc1":
            kernel = kernel[_fc1_rows()]
        layer = getattr(model, name)
        layer.kernel.value = jnp.asarray(kernel)
        layer.bias.value = jnp.asarray(weights[f"{name}.bias"])


def read(ns):
    out = {}
    for name in LAYERS:
        layer = getattr(ns["model"], name)
        kernel = np.array(layer.kernel.value)
        if name.startswith("conv"):
            kernel = kernel.transpose(3, 2, 0, 1)
        elif name == "fc1":
            restored = np.empty_like(kernel)
            restored[_fc1_rows()] = kernel
            kernel = restored
        out[f"{name}.kernel"], out[f"{name}.bias"] = kernel, np.array(layer.bias.value)
    return out


def _images(x):
    return jnp.asarray(x.transpose(0, 2, 3, 1))                   # neutral is (N, C, H, W)


def forward(ns, x):
    model = ns["model"]
    model.eval()
    logits = np.asarray(model(_images(x)))
    model.train()
    return logits


def train_step(ns, x, y):
    # The body of the snippet's training loop: its own compiled step.
    return float(ns["train_step"](ns["model"], ns["optimizer"], _images(x), jnp.asarray(y)))
