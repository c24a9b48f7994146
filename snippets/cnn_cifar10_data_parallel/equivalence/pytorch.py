"""Neutral CNN weights <-> the data-parallel PyTorch snippet: DistributedDataParallel around the CNN tab's
VGGish (conv (out, in, h, w); Linear (out, in)), whose own network is `model.module`.

Every rank loads the same weights. A training step gives each rank its rows of the batch, as the snippet's
train cell deals them; the loss it returns is the whole batch's (the ranks' losses, averaged)."""
import numpy as np
import torch
import torch.distributed as dist

LAYERS = ("conv1", "conv2", "conv3", "conv4", "fc1", "fc2")


def _pairs(ns):
    for name in LAYERS:
        layer = getattr(ns["model"].module, name)
        dense = name.startswith("fc")
        yield f"{name}.kernel", layer.weight, dense
        yield f"{name}.bias", layer.bias, False


def load(ns, weights, x):
    with torch.no_grad():
        for name, parameter, dense in _pairs(ns):
            value = weights[name].T if dense else weights[name]
            parameter.copy_(torch.from_numpy(np.ascontiguousarray(value)))


def read(ns):
    return {name: (p.detach().cpu().numpy().T if dense else p.detach().cpu().numpy()).copy()
            for name, p, dense in _pairs(ns)}


def forward(ns, x):
    network = ns["model"].module                # this rank's copy alone: inference needs no other rank
    network.eval()
    with torch.no_grad():
        logits = network(torch.from_numpy(x).to(ns["device"]))
    network.train()
    return logits.cpu().numpy()


def train_step(ns, x, y):
    # The body of the snippet's training loop, on this rank's rows of the batch.
    model, optimizer, device, rank, workers = ns["model"], ns["optimizer"], ns["device"], ns["rank"], ns["workers"]
    model.train()
    optimizer.zero_grad()
    loss = ns["loss_fn"](model(torch.from_numpy(x[rank::workers]).to(device)),
                         torch.from_numpy(y[rank::workers]).long().to(device))
    loss.backward()
    optimizer.step()
    total = loss.detach().clone()
    dist.all_reduce(total)                      # equal shares: the mean of the ranks' means is the batch's
    return total.item() / workers
