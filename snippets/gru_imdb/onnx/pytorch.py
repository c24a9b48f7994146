"""PyTorch: torch.onnx.export runs the model once and writes the graph it ran (nn.GRU becomes one ONNX GRU)."""
import numpy as np
import torch


def inputs(ns, x):
    return x.astype(np.int64)                            # token ids, as nn.Embedding takes them


def export(ns, x, path):
    model = ns["model"].eval()                           # inference mode
    torch.onnx.export(model, (torch.from_numpy(x),), path, input_names=["tokens"], output_names=["logits"],
                      dynamic_shapes={"tokens": {0: torch.export.Dim("batch")}},   # any batch size
                      external_data=False)                                       # the weights inside the one file
