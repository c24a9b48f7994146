"""MXNet Gluon: a hybridized block exports its symbol and parameters; mx.onnx turns them into ONNX."""
import mxnet as mx
import numpy as np


def inputs(ns, x):
    return x                                             # the neutral batch is (N, 3, 32, 32) already


def export(ns, x, path):
    prefix = path.removesuffix(".onnx")
    ns["model"].export(prefix)                           # prefix-symbol.json, prefix-0000.params
    mx.onnx.export_model(f"{prefix}-symbol.json", f"{prefix}-0000.params", in_shapes=[x.shape],
                         in_types=[np.float32], onnx_file_path=path,
                         dynamic=True, dynamic_input_shapes=[(None, *x.shape[1:])])
