"""Chainer: onnx_chainer (shipped with Chainer 7) runs the model on a batch and records the graph."""
import chainer
import onnx_chainer


def inputs(ns, x):
    return x                                             # token ids (int32)


def export(ns, x, path):
    with chainer.using_config("train", False):
        onnx_chainer.export(ns["model"], ns["device"].send(x), filename=path)
