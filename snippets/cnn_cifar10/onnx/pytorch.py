"""PyTorch: torch.onnx.export runs the model once and writes the graph it ran."""
import torch


def inputs(ns, x):
    return x                                             # the neutral batch is (N, 3, 32, 32) already


def export(ns, x, path):
    model = ns["model"].eval()                           # inference mode: no dropout in the graph
    torch.onnx.export(model, (torch.from_numpy(x),), path, input_names=["images"], output_names=["logits"],
                      dynamic_shapes={"x": {0: torch.export.Dim("batch")}},   # any batch size
                      external_data=False)                                  # the weights inside the one file
