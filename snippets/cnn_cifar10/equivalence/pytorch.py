"""Neutral CNN weights <-> the PyTorch snippet's VGGish (conv (out, in, h, w); Linear (out, in))."""
import numpy as np
import torch

LAYERS = ("conv1", "conv2", "conv3", "conv4", "fc1", "fc2")


def _pairs(model):
    for name in LAYERS:
        layer = getattr(model, name)
        dense = name.startswith("fc")
        yield f"{name}.kernel", layer.weight, dense
        yield f"{name}.bias", layer.bias, False


def load(ns, weights, x):
    with torch.no_grad():
        for name, parameter, dense in _pairs(ns["model"]):
            value = weights[name].T if dense else weights[name]
            parameter.copy_(torch.from_numpy(np.ascontiguousarray(value)))


def read(ns):
    return {name: (p.detach().cpu().numpy().T if dense else p.detach().cpu().numpy()).copy()
            for name, p, dense in _pairs(ns["model"])}


def forward(ns, x):
    model = ns["model"]
    model.eval()
    with torch.no_grad():
        logits = model(torch.from_numpy(x).to(ns["device"]))
    model.train()
    return logits.cpu().numpy()


def train_step(ns, x, y):
    # The body of the snippet's training loop.
    model, optimizer, device = ns["model"], ns["optimizer"], ns["device"]
    model.train()
    optimizer.zero_grad()
    loss = ns["loss_fn"](model(torch.from_numpy(x).to(device)), torch.from_numpy(y).long().to(device))
    loss.backward()
    optimizer.step()
    return loss.item()
