"""Neutral CNN weights <-> the data-parallel Gluon snippet's HybridSequential (conv (out, in, h, w); Dense
(out, in)), trained through a dist_sync kvstore.

Every worker loads the same weights before the first step, when the Trainer sends worker 0's to the
server. A training step gives each worker its rows of the batch, as the snippet's train cell deals them;
the server applies the optimizer to the summed gradients and every worker pulls the new weights."""
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
    # The body of the snippet's training loop, on this worker's rows of the batch.
    rank, workers, ctx = ns["rank"], ns["workers"], ns["ctx"]
    # The whole batch's loss before the step, which the kvstore cannot sum for us (a key pushed to a dist
    # kvstore is a gradient the server would apply): the same weights, dropout off in the checks.
    batch_loss = ns["loss_fn"](ns["model"](mx.nd.array(x, ctx=ctx)), mx.nd.array(y, ctx=ctx)).mean().asscalar()
    mine, labels = mx.nd.array(x[rank::workers], ctx=ctx), mx.nd.array(y[rank::workers], ctx=ctx)
    with autograd.record():
        loss = ns["loss_fn"](ns["model"](mine), labels)
    loss.backward()
    ns["trainer"].step(x.shape[0])              # the server sums the workers' gradients: divide by the batch
    return batch_loss
