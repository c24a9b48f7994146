"""Chainer: onnx_chainer (shipped with Chainer 7) runs the model on a batch and records the graph."""
import chainer
import onnx_chainer


def inputs(ns, x):
    return x                                             # the neutral batch is (N, 3, 32, 32) already


def export(ns, x, path):
    with chainer.using_config("train", False):           # dropout off in the recorded graph
        onnx_chainer.export(ns["model"], ns["device"].send(x), filename=path)
