"""Neutral GRU classifier weights <-> the Chainer snippet's GRUClassifier.

NStepGRU keeps one (hidden, inputs) matrix per gate: w0, w1, w2 multiply the input for
r, z, n and w3, w4, w5 the hidden state; b0-b2 and b3-b5 are the matching biases.
L.Linear stores (outputs, inputs).
"""
import chainer
import numpy as np

GATES = ("r", "z", "n")   # neutral order; Chainer's index within each group of three


def _cpu(array):
    return chainer.backend.CpuDevice().send(array)


def load(ns, weights, x):
    model, device = ns["model"], ns["device"]
    cell = model.gru[0]
    model.embed.W.array[...] = device.send(weights["embedding"])
    for part, offset in (("input", 0), ("recurrent", 3)):
        kernels = np.split(weights[f"gru.{part}_kernel"], 3, axis=1)
        biases = np.split(weights[f"gru.{part}_bias"], 3)
        for gate in range(3):
            getattr(cell, f"w{offset + gate}").array[...] = device.send(np.ascontiguousarray(kernels[gate].T))
            getattr(cell, f"b{offset + gate}").array[...] = device.send(biases[gate])
    model.fc.W.array[...] = device.send(np.ascontiguousarray(weights["fc.kernel"].T))
    model.fc.b.array[...] = device.send(weights["fc.bias"])


def read(ns):
    model = ns["model"]
    cell = model.gru[0]
    out = {"embedding": _cpu(model.embed.W.array).copy()}
    for part, offset in (("input", 0), ("recurrent", 3)):
        out[f"gru.{part}_kernel"] = np.concatenate(
            [_cpu(getattr(cell, f"w{offset + g}").array).T for g in range(3)], axis=1)
        out[f"gru.{part}_bias"] = np.concatenate([_cpu(getattr(cell, f"b{offset + g}").array) for g in range(3)])
    out["fc.kernel"] = _cpu(model.fc.W.array).T.copy()
    out["fc.bias"] = _cpu(model.fc.b.array).copy()
    return out


def forward(ns, x):
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        logits = ns["model"](ns["device"].send(x))
    return _cpu(logits.array)


def train_step(ns, x, y):
    # The body of the snippet's training loop.
    model, device = ns["model"], ns["device"]
    loss = ns["loss_fn"](model(device.send(x)), device.send(y))
    model.cleargrads()
    loss.backward()
    ns["optimizer"].update()
    return float(loss.array)
