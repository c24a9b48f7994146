"""Neutral GRU classifier weights <-> the Theano snippet's shared variables.

The snippet writes the cell out in the neutral layout itself (gates r, z, n side by side, kernels
(in, out), the reset gate applied after the recurrent product and its bias) and names each shared
variable as the neutral format does: loading is set_value, which the compiled functions read at
their next call.
"""
import numpy as np


def _params(ns):
    return {p.name: p for p in ns["params"]}


def load(ns, weights, x):
    for name, p in _params(ns).items():
        p.set_value(np.asarray(weights[name], dtype=p.dtype))


def read(ns):
    return {name: p.get_value().copy() for name, p in _params(ns).items()}


def forward(ns, x):
    return ns["predict"](x)


def train_step(ns, x, y):
    # The snippet's compiled step, which its train cell runs on every batch.
    return float(ns["train"](x, y))
