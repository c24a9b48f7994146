"""Neutral CNN weights <-> the Theano snippet's shared variables (conv (out, in, h, w); dense (in, out)).

The snippet names each shared variable as the neutral format does ("conv1.kernel", ..., "fc2.bias")
and stores it in the neutral layout: its conv2d runs with filter_flip=False (a cross-correlation) and
its dense kernels multiply from the right, x W. Loading is set_value on those variables, which the
compiled functions read at their next call.
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
    return ns["predict"](x)                             # the compiled graph without dropout


def train_step(ns, x, y):
    # The snippet's compiled step, which its train cell runs on every batch.
    return float(ns["train"](x, y))
