"""Neutral CNN weights <-> the data-parallel Keras-on-JAX snippet's Sequential model, whose weights
DataParallel replicates on every device of every worker.

Keras stores conv kernels (h, w, in, out) and dense kernels (in, out). Its Flatten orders fc1's inputs
(h, w, c) instead of (c, h, w) in either layout. Every worker sets the same weights. A training step gives
each worker its rows of the batch, as the snippet's train cell deals them."""
import jax
import keras
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

LAYERS = ("conv1", "conv2", "conv3", "conv4", "fc1", "fc2")


def _layers(model):
    convs = [layer for layer in model.layers if isinstance(layer, keras.layers.Conv2D)]
    denses = [layer for layer in model.layers if isinstance(layer, keras.layers.Dense)]
    return dict(zip(LAYERS, convs + denses))


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
        kernel, bias = layer.get_weights()                         # replicated: every worker holds all of it
        if name.startswith("conv"):
            kernel = kernel.transpose(3, 2, 0, 1)
        elif name == "fc1":
            restored = np.empty_like(kernel)
            restored[_fc1_rows()] = kernel
            kernel = restored
        out[f"{name}.kernel"], out[f"{name}.bias"] = kernel, bias
    return out


def _images(x):
    channels_last = keras.config.image_data_format() == "channels_last"
    return x.transpose(0, 2, 3, 1) if channels_last else x          # neutral is (N, C, H, W)


def forward(ns, x):
    # predict() would gather the sharded outputs into one NumPy array, which a worker cannot hold (the other
    # worker's rows are not its own): every worker gives the whole batch, and reads back its own copy's rows.
    model = ns["model"]
    by_rows = NamedSharding(Mesh(np.array(jax.devices()), ("batch",)), P("batch"))
    inputs = jax.make_array_from_process_local_data(by_rows, _images(x))
    logits = jax.jit(lambda trainable, other, batch: model.stateless_call(trainable, other, batch)[0])(
        [v.value for v in model.trainable_variables], [v.value for v in model.non_trainable_variables], inputs)
    return np.concatenate([np.asarray(shard.data) for shard in sorted(
        logits.addressable_shards, key=lambda shard: shard.index[0].start or 0)])


def train_step(ns, x, y):
    # fit() runs this same step on every batch: this worker's rows, joined with the others' into one batch.
    rank, workers = ns["rank"], ns["workers"]
    return ns["model"].train_on_batch(_images(x)[rank::workers], y[rank::workers], return_dict=True)["loss"]
