"""Neutral GRU classifier weights <-> the Keras snippet's Sequential model.

Keras' GRU stores kernel (inputs, 3·hidden) and recurrent_kernel (hidden, 3·hidden) with the
gates in the order z, r, n (neutral: r, z, n), and both biases in one (2, 3·hidden) tensor:
row 0 for the input, row 1 for the recurrent product (reset_after=True), on every backend.
"""
import keras
import numpy as np


def _swap_rz(a, axis=-1):
    """r, z, n <-> z, r, n: the same permutation both ways."""
    r, z, n = np.split(a, 3, axis=axis)
    return np.concatenate([z, r, n], axis=axis)


def _layers(model):
    by_type = {type(layer).__name__: layer for layer in model.layers}
    return by_type["Embedding"], by_type["GRU"], by_type["Dense"]


def load(ns, weights, x):
    embedding, gru, dense = _layers(ns["model"])
    if not gru.cell.reset_after:
        raise ValueError("the neutral GRU applies the reset gate after the recurrent product: reset_after=True")
    embedding.set_weights([weights["embedding"]])
    bias = np.stack([weights["gru.input_bias"], weights["gru.recurrent_bias"]])
    gru.set_weights([_swap_rz(weights["gru.input_kernel"]), _swap_rz(weights["gru.recurrent_kernel"]),
                     _swap_rz(bias)])
    dense.set_weights([weights["fc.kernel"], weights["fc.bias"]])


def read(ns):
    embedding, gru, dense = _layers(ns["model"])
    kernel, recurrent, bias = gru.get_weights()                   # NumPy copies, on every backend
    bias = _swap_rz(bias)
    fc_kernel, fc_bias = dense.get_weights()
    return {"embedding": embedding.get_weights()[0],
            "gru.input_kernel": _swap_rz(kernel), "gru.recurrent_kernel": _swap_rz(recurrent),
            "gru.input_bias": bias[0].copy(), "gru.recurrent_bias": bias[1].copy(),
            "fc.kernel": fc_kernel, "fc.bias": fc_bias}


def forward(ns, x):
    return keras.ops.convert_to_numpy(ns["model"](x, training=False))


def train_step(ns, x, y):
    # fit() runs this same step on every batch (compiled where the backend compiles it).
    return ns["model"].train_on_batch(x, y)
