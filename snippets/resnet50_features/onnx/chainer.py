"""Chainer: onnx_chainer (shipped with Chainer 7) runs a link on a batch and records the graph. The zoo's
ResNet50Layers returns a dict of the layers asked for: a small Chain asks for pool5."""
import chainer
import onnx_chainer


class Features(chainer.Chain):
    def __init__(self, zoo):
        super().__init__()
        with self.init_scope():
            self.zoo = zoo

    def forward(self, x):
        return self.zoo(x, layers=["pool5"])["pool5"]   # the 2,048 averages, as the snippet's extract()


def inputs(ns, x):
    return x                                             # the neutral batch is (N, 3, H, W) already


def export(ns, x, path):
    with chainer.using_config("train", False):           # batch norm with its running statistics
        onnx_chainer.export(Features(ns["model"]), ns["device"].send(x), filename=path)
