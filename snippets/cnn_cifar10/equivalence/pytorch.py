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


def facts(ns):
    """Operations per sample, counted by PyTorch's own counter (matrix products and convolutions) on the
    snippet's model: one forward pass, and one training step's forward and backward passes."""
    from torch.utils.flop_counter import FlopCounterMode
    model, x = ns["model"], torch.zeros(1, 3, 32, 32, device=ns["device"])
    y = torch.zeros(1, dtype=torch.long, device=ns["device"])
    forward, training = FlopCounterMode(display=False), FlopCounterMode(display=False)
    with torch.no_grad(), forward:
        model(x)
    with training:
        ns["loss_fn"](model(x), y).backward()
    model.zero_grad()
    return {"forward GFLOPs per sample": forward.get_total_flops() / 1e9,
            "training GFLOPs per sample": training.get_total_flops() / 1e9}
