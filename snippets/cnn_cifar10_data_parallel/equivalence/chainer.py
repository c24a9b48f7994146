"""Neutral CNN weights <-> the data-parallel Chainer snippet's VGGish (conv (out, in, h, w); Linear (out, in)),
trained by ChainerMN's multi-node optimizer over MPI.

Every rank loads the same weights before the first step (the optimizer would send rank 0's at its first
update anyway). A training step gives each rank its rows of the batch, as the snippet's train cell deals them;
the optimizer averages the gradients over the ranks before the update."""
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
    with chainer.using_config("train", False), chainer.no_backprop_mode():   # this rank's copy alone
        logits = ns["model"](ns["device"].send(x))
    return chainer.backend.CpuDevice().send(logits.array)


def train_step(ns, x, y):
    # The body of the snippet's training loop, on this rank's rows of the batch.
    model, device, rank, workers = ns["model"], ns["device"], ns["rank"], ns["workers"]
    loss = ns["loss_fn"](model(device.send(x[rank::workers])), device.send(y[rank::workers]))
    model.cleargrads()
    loss.backward()
    ns["optimizer"].update()
    # Equal shares: the mean of the ranks' means is the batch's.
    return ns["comm"].allreduce_obj(float(loss.array)) / workers
