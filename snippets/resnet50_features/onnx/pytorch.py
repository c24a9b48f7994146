"""PyTorch: torch.onnx.export runs the model once and writes the graph it ran."""
import torch


def inputs(ns, x):
    return x                                             # the neutral batch is (N, 3, H, W) already


def export(ns, x, path):
    model = ns["model"].eval()                           # batch norm with its running statistics
    torch.onnx.export(model, (torch.from_numpy(x),), path, input_names=["images"], output_names=["features"],
                      dynamic_shapes={"x": {0: torch.export.Dim("batch")}},   # any batch size
                      external_data=False)                                  # the weights inside the one file
