"""Neutral GRU classifier weights <-> the PyTorch snippet's GRUClassifier.

nn.GRU stores weight_ih_l0 (3·hidden, inputs) and weight_hh_l0 (3·hidden, hidden) with the
gates in the neutral order r, z, n: only a transpose. nn.Linear stores (outputs, inputs).
"""
import numpy as np
import torch

PAIRS = (  # neutral name, parameter path in the model, stored transposed?
    ("embedding", "embedding.weight", False),
    ("gru.input_kernel", "gru.weight_ih_l0", True),
    ("gru.recurrent_kernel", "gru.weight_hh_l0", True),
    ("gru.input_bias", "gru.bias_ih_l0", False),
    ("gru.recurrent_bias", "gru.bias_hh_l0", False),
    ("fc.kernel", "fc.weight", True),
    ("fc.bias", "fc.bias", False),
)


def load(ns, weights, x):
    parameters = dict(ns["model"].named_parameters())
    with torch.no_grad():
        for name, path, transposed in PAIRS:
            value = weights[name].T if transposed else weights[name]
            parameters[path].copy_(torch.from_numpy(np.ascontiguousarray(value)))


def read(ns):
    parameters = dict(ns["model"].named_parameters())
    out = {}
    for name, path, transposed in PAIRS:
        value = parameters[path].detach().cpu().numpy()
        out[name] = (value.T if transposed else value).copy()
    return out


def forward(ns, x):
    model = ns["model"]
    model.eval()
    with torch.no_grad():
        logits = model(torch.from_numpy(x).long().to(ns["device"]))
    model.train()
    return logits.cpu().numpy()


def train_step(ns, x, y):
    # The body of the snippet's training loop.
    model, optimizer, device = ns["model"], ns["optimizer"], ns["device"]
    model.train()
    optimizer.zero_grad()
    loss = ns["loss_fn"](model(torch.from_numpy(x).long().to(device)), torch.from_numpy(y).long().to(device))
    loss.backward()
    optimizer.step()
    return loss.item()


def facts(ns):
    """Operations per sample, counted by PyTorch's own counter (matrix products and convolutions) on the
    snippet's model: one forward pass, and one training step's forward and backward passes."""
    from torch.utils.flop_counter import FlopCounterMode
    model, x = ns["model"], torch.zeros(1, ns["hp"].max_length, dtype=torch.long, device=ns["device"])
    y = torch.zeros(1, dtype=torch.long, device=ns["device"])
    forward, training = FlopCounterMode(display=False), FlopCounterMode(display=False)
    with torch.no_grad(), forward:
        model(x)
    with training:
        ns["loss_fn"](model(x), y).backward()
    model.zero_grad()
    return {"forward GFLOPs per sample": forward.get_total_flops() / 1e9,
            "training GFLOPs per sample": training.get_total_flops() / 1e9}
