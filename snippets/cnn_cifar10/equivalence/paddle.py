"""Neutral CNN weights <-> the PaddlePaddle snippet's VGGish. Paddle stores both layouts as the neutral form
does: Conv2D (out, in, h, w) and Linear (in, out), so no tensor is transposed."""
import numpy as np
import paddle

LAYERS = ("conv1", "conv2", "conv3", "conv4", "fc1", "fc2")


def _pairs(model):
    for name in LAYERS:
        layer = getattr(model, name)
        yield f"{name}.kernel", layer.weight
        yield f"{name}.bias", layer.bias


def load(ns, weights, x):
    with paddle.no_grad():
        for name, parameter in _pairs(ns["model"]):
            parameter.set_value(np.ascontiguousarray(weights[name]))


def read(ns):
    return {name: parameter.numpy().copy() for name, parameter in _pairs(ns["model"])}


def forward(ns, x):
    model = ns["model"]
    model.eval()
    with paddle.no_grad():
        logits = model(paddle.to_tensor(x))
    model.train()
    return logits.numpy()


def train_step(ns, x, y):
    # The body of the snippet's training loop.
    model, optimizer = ns["model"], ns["optimizer"]
    model.train()
    loss = ns["loss_fn"](model(paddle.to_tensor(x)), paddle.to_tensor(y, dtype="int64"))
    loss.backward()
    optimizer.step()
    optimizer.clear_grad()
    return loss.item()
