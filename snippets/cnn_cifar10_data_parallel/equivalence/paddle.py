"""Neutral CNN weights <-> the data-parallel PaddlePaddle snippet: paddle.DataParallel around the CNN tab's
VGGish (Conv2D (out, in, h, w) and Linear (in, out), as the neutral form), whose own network is
`model._layers`.

Every rank loads the same weights. A training step gives each rank its rows of the batch, as the snippet's
train cell deals them; the loss it returns is the whole batch's (the ranks' losses, averaged)."""
import numpy as np
import paddle
import paddle.distributed as dist

LAYERS = ("conv1", "conv2", "conv3", "conv4", "fc1", "fc2")


def _pairs(ns):
    for name in LAYERS:
        layer = getattr(ns["model"]._layers, name)
        yield f"{name}.kernel", layer.weight
        yield f"{name}.bias", layer.bias


def load(ns, weights, x):
    with paddle.no_grad():
        for name, parameter in _pairs(ns):
            parameter.set_value(np.ascontiguousarray(weights[name]))


def read(ns):
    return {name: parameter.numpy().copy() for name, parameter in _pairs(ns)}


def forward(ns, x):
    network = ns["model"]._layers               # this rank's copy alone: inference needs no other rank
    network.eval()
    with paddle.no_grad():
        logits = network(paddle.to_tensor(x))
    network.train()
    return logits.numpy()


def train_step(ns, x, y):
    # The body of the snippet's training loop, on this rank's rows of the batch.
    model, optimizer, rank, workers = ns["model"], ns["optimizer"], ns["rank"], ns["workers"]
    model.train()
    loss = ns["loss_fn"](model(paddle.to_tensor(x[rank::workers])), paddle.to_tensor(y[rank::workers], dtype="int64"))
    loss.backward()
    optimizer.step()
    optimizer.clear_grad()
    total = loss.detach().clone()
    if workers > 1:                             # (Paddle makes no process group for a single worker)
        dist.all_reduce(total)                  # equal shares: the mean of the ranks' means is the batch's
    return total.item() / workers
