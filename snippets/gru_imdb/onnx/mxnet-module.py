"""MXNet Module: the symbol up to the logits and the module's parameters, through mx.onnx."""
import mxnet as mx
import numpy as np


def inputs(ns, x):
    return x.astype(np.float32)                          # token ids as floats, as the module's data


def export(ns, x, path):
    logits = ns["net"].get_internals()["fc_output"]       # the symbol before its SoftmaxOutput (a loss)
    arg_params, aux_params = ns["mod"].get_params()
    mx.onnx.export_model(logits, {**arg_params, **aux_params}, in_shapes=[x.shape], in_types=[np.float32],
                         onnx_file_path=path, dynamic=True, dynamic_input_shapes=[(None, *x.shape[1:])])
