"""Neutral CNN weights <-> the data-parallel Flax NNX snippet's VGGish, whose weights are global arrays
replicated over the mesh of every worker's devices.

Flax stores conv kernels (h, w, in, out) and dense kernels (in, out), and runs channels last, so its
flatten orders fc1's inputs (h, w, c) instead of (c, h, w): the adapter permutes those rows. Every process
gives the same weights, which become one replicated array; a training step feeds each process's rows of the
batch into one array sharded over "data", as the snippet's train cell does."""
import jax
import numpy as np
from flax import nnx

LAYERS = ("conv1", "conv2", "conv3", "conv4", "fc1", "fc2")


def _fc1_rows(channels=100, height=8, width=8):
    """For each Flax row of fc1 (h, w, c order), the neutral row (c, h, w order)."""
    c, h, w = np.meshgrid(np.arange(channels), np.arange(height), np.arange(width), indexing="ij")
    neutral_index = c * height * width + h * width + w            # (c, h, w) grid of neutral rows
    return neutral_index.transpose(1, 2, 0).ravel()               # read in (h, w, c) order


def _replicated(ns, value):
    return jax.make_array_from_process_local_data(ns["replicated"], np.asarray(value))


def load(ns, weights, x):
    model = ns["model"]
    for name in LAYERS:
        kernel = weights[f"{name}.kernel"]
        if name.startswith("conv"):
            kernel = kernel.transpose(2, 3, 1, 0)                  # (out, in, h, w) -> (h, w, in, out)
        elif name == "fc1":
            kernel = kernel[_fc1_rows()]
        layer = getattr(model, name)
        layer.kernel.value = _replicated(ns, kernel)
        layer.bias.value = _replicated(ns, weights[f"{name}.bias"])


def read(ns):
    out = {}
    for name in LAYERS:
        layer = getattr(ns["model"], name)
        kernel = np.array(layer.kernel.value)                      # replicated: every process holds all of it
        if name.startswith("conv"):
            kernel = kernel.transpose(3, 2, 0, 1)
        elif name == "fc1":
            restored = np.empty_like(kernel)
            restored[_fc1_rows()] = kernel
            kernel = restored
        out[f"{name}.kernel"], out[f"{name}.bias"] = kernel, np.array(layer.bias.value)
    return out


def _images(x):
    return x.transpose(0, 2, 3, 1)                                 # neutral is (N, C, H, W)


@nnx.jit
def _logits(model, x):
    return model(x)


def forward(ns, x):
    # The whole batch given by every process, replicated: any batch size, even one image, and every
    # process gets all the logits.
    model = ns["model"]
    model.eval()
    logits = np.array(_logits(model, _replicated(ns, _images(x))))
    model.train()
    return logits


def train_step(ns, x, y):
    # The body of the snippet's training loop: its own compiled step, on this process's rows of the batch.
    rank, workers, sharded = ns["rank"], ns["workers"], ns["sharded"]
    return float(ns["train_step"](ns["model"], ns["optimizer"], sharded(_images(x)[rank::workers]),
                                  sharded(y[rank::workers])))
