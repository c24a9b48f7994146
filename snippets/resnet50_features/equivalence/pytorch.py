"""Neutral ResNet-50 weights <-> the PyTorch snippet's torchvision ResNet-50 (fc replaced by Identity).

The neutral names are torchvision's own state_dict names, so this is a plain state_dict copy.
"""
import numpy as np
import torch


def _state(model):
    return {name: value for name, value in model.state_dict().items()
            if not name.endswith("num_batches_tracked")}


def load(ns, weights, x):
    state = _state(ns["model"])
    with torch.no_grad():
        for name, value in weights.items():
            state[name].copy_(torch.from_numpy(np.ascontiguousarray(value)))


def read(ns):
    return {name: value.detach().cpu().numpy().copy() for name, value in _state(ns["model"]).items()}


def forward(ns, x):
    with torch.inference_mode():
        return ns["model"](torch.from_numpy(x).to(ns["device"])).cpu().numpy()


def facts(ns):
    """Measured by PyTorch's own counter on the model as it stands (convolutions and matmuls)."""
    from torch.utils.flop_counter import FlopCounterMode
    counter = FlopCounterMode(display=False)
    image = torch.zeros(1, 3, ns["hp"].image_size, ns["hp"].image_size, device=ns["device"])
    with torch.inference_mode(), counter:
        ns["model"](image)
    return {"forward GFLOPs per sample": counter.get_total_flops() / 1e9}
