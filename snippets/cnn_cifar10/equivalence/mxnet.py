"""Neutral CNN weights <-> the Gluon snippet's HybridSequential (conv (out, in, h, w); Dense (out, in))."""
import mxnet as mx
from mxnet import autograd
from mxnet.gluon import nn

LAYERS = ("conv1", "conv2", "conv3", "conv4", "fc1", "fc2")


def _layers(model):
    convs = [block for block in model if isinstance(block, nn.Conv2D)]
    denses = [block for block in model if isinstance(block, nn.Dense)]
    return dict(zip(LAYERS, convs + denses))


def load(ns, weights, x):
    ns["model"](mx.nd.array(x[:1], ctx=ns["ctx"]))          # Gluon infers input sizes on the first call
    for name, block in _layers(ns["model"]).items():
        kernel = weights[f"{name}.kernel"]
        block.weight.set_data(mx.nd.array(kernel.T if name.startswith("fc") else kernel))
        block.bias.set_data(mx.nd.array(weights[f"{name}.bias"]))


def read(ns):
    out = {}
    for name, block in _layers(ns["model"]).items():
        kernel = block.weight.data().asnumpy()
        out[f"{name}.kernel"] = kernel.T.copy() if name.startswith("fc") else kernel
        out[f"{name}.bias"] = block.bias.data().asnumpy()
    return out


def forward(ns, x):
    return ns["model"](mx.nd.array(x, ctx=ns["ctx"])).asnumpy()   # outside record(): inference mode


def train_step(ns, x, y):
    # The body of the snippet's training loop.
    x, y = mx.nd.array(x, ctx=ns["ctx"]), mx.nd.array(y, ctx=ns["ctx"])
    with autograd.record():
        loss = ns["loss_fn"](ns["model"](x), y)
    loss.backward()
    ns["trainer"].step(x.shape[0])
    return loss.mean().asscalar()
