"""Neutral GRU classifier weights <-> the Flax NNX snippet's GRUClassifier.

The snippet's GRUCell is the neutral cell: dense_i and dense_h store (inputs, 3·hidden) kernels
with the gates in the order r, z, n, and a bias each. Flax's Linear stores (inputs, outputs): no
transposes anywhere.
"""
import jax.numpy as jnp
import numpy as np

PATHS = {  # neutral name -> attribute path of the nnx.Param in the snippet's model
    "embedding": "embedding.embedding",
    "gru.input_kernel": "gru.cell.dense_i.kernel",
    "gru.recurrent_kernel": "gru.cell.dense_h.kernel",
    "gru.input_bias": "gru.cell.dense_i.bias",
    "gru.recurrent_bias": "gru.cell.dense_h.bias",
    "fc.kernel": "fc.kernel",
    "fc.bias": "fc.bias",
}


def _param(model, path):
    for attribute in path.split("."):
        model = getattr(model, attribute)
    return model


def load(ns, weights, x):
    for name, path in PATHS.items():
        _param(ns["model"], path).value = jnp.asarray(weights[name])


def read(ns):
    return {name: np.array(_param(ns["model"], path).value) for name, path in PATHS.items()}


def forward(ns, x):
    return np.asarray(ns["model"](jnp.asarray(x)))       # no dropout, no batch norm: one mode


def train_step(ns, x, y):
    # The body of the snippet's training loop: its own compiled step.
    return float(ns["train_step"](ns["model"], ns["optimizer"], jnp.asarray(x), jnp.asarray(y)))
