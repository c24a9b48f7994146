"""Neutral CNN weights <-> the Chainer snippet's VGGish (conv (out, in, h, w); Linear (out, in))."""
import chainer
import numpy as np

LAYERS = ("conv1", "conv2", "conv3", "conv4", "fc1", "fc2")


def load(ns, weights, x):
    model, device = ns["model"], ns["device"]
    for name in LAYERS:
        link = getattr(model, name)
        kernel = weights[f"{name}.kernel"]
        link.W.array[...] = device.send(np.ascontiguousarray(kernel.T if name.startswith("fc") else kernel))
        link.b.array[...] = device.send(weights[f"{name}.bias"])


def read(ns):
    out = {}
    for name in LAYERS:
        link = getattr(ns["model"], name)
        kernel = chainer.backend.CpuDevice().send(link.W.array)
        out[f"{name}.kernel"] = kernel.T.copy() if name.startswith("fc") else kernel.copy()
        out[f"{name}.bias"] = chainer.backend.CpuDevice().send(link.b.array).copy()
    return out


def forward(ns, x):
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        logits = ns["model"](ns["device"].send(x))
    return chainer.backend.CpuDevice().send(logits.array)


def train_step(ns, x, y):
    # The body of the snippet's training loop.
    model, device = ns["model"], ns["device"]
    loss = ns["loss_fn"](model(device.send(x)), device.send(y))
    model.cleargrads()
    loss.backward()
    ns["optimizer"].update()
    return float(loss.array)
