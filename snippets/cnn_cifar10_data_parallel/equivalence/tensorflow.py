"""Neutral CNN weights <-> the data-parallel TensorFlow snippet's VGGish: a tf.Module of (kernel, bias)
variables made in MultiWorkerMirroredStrategy's scope (one mirrored copy per worker).

tf.nn.conv2d takes kernels (h, w, in, out); dense kernels are (in, out), as neutral. The snippet runs
channels last, so its reshape orders fc1's inputs (h, w, c) instead of (c, h, w): the adapter permutes those
rows. Every rank assigns the same weights (outside a replica context, an assignment sets this worker's
copy). A training step gives each rank its rows of the batch, as the snippet's train cell deals them."""
import numpy as np
import tensorflow as tf

LAYERS = ("conv1", "conv2", "conv3", "conv4", "fc1", "fc2")


def _fc1_rows(channels=100, height=8, width=8):
    """For each TensorFlow row of fc1 (h, w, c order), the neutral row (c, h, w order)."""
    c, h, w = np.meshgrid(np.arange(channels), np.arange(height), np.arange(width), indexing="ij")
    neutral_index = c * height * width + h * width + w             # (c, h, w) grid of neutral rows
    return neutral_index.transpose(1, 2, 0).ravel()               # read in (h, w, c) order


def load(ns, weights, x):
    for name in LAYERS:
        kernel_var, bias_var = getattr(ns["model"], name)
        kernel = weights[f"{name}.kernel"]
        if name.startswith("conv"):
            kernel = kernel.transpose(2, 3, 1, 0)                  # (out, in, h, w) -> (h, w, in, out)
        elif name == "fc1":
            kernel = kernel[_fc1_rows()]
        kernel_var.assign(kernel)
        bias_var.assign(weights[f"{name}.bias"])


def read(ns):
    out = {}
    for name in LAYERS:
        kernel, bias = (v.numpy() for v in getattr(ns["model"], name))
        if name.startswith("conv"):
            kernel = kernel.transpose(3, 2, 0, 1)
        elif name == "fc1":
            restored = np.empty_like(kernel)
            restored[_fc1_rows()] = kernel
            kernel = restored
        out[f"{name}.kernel"], out[f"{name}.bias"] = np.ascontiguousarray(kernel), bias
    return out


def _images(x):
    return tf.constant(x.transpose(0, 2, 3, 1))                   # neutral is (N, C, H, W)


def forward(ns, x):
    return ns["model"](_images(x), training=False).numpy()          # this worker's copy: no other worker needed


def train_step(ns, x, y):
    # The snippet's compiled step on this worker's rows; it returns the whole batch's loss, summed over workers.
    rank, workers = ns["rank"], ns["workers"]
    return float(ns["train_step"](_images(x[rank::workers]), tf.constant(y[rank::workers])))
