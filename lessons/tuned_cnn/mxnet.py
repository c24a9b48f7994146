# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # The CNN's training step, as written and tuned, in MXNet Gluon
# The benchmark's snippet already hybridizes with `static_alloc=True, static_shape=True`, the
# performance notes' advice: here the other variant takes it away, to show what it buys.

# %% tags=["setup"]
import time

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon
from mxnet.gluon import nn

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("tuned_cnn")
mx.random.seed(hp.seed)
rng = np.random.default_rng(hp.seed)
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = mx.nd.array(x_train, ctx=ctx), mx.nd.array(y_train, ctx=ctx)


def vggish():
    """The CNN benchmark's network, copied from its snippet."""
    model = nn.HybridSequential()
    model.add(
        nn.Conv2D(50, kernel_size=3, padding=1, activation="relu"),
        nn.Conv2D(50, kernel_size=3, padding=1),
        nn.MaxPool2D(pool_size=2, strides=2),
        nn.Activation("relu"),
        nn.Dropout(hp.dropout_conv),
        nn.Conv2D(100, kernel_size=3, padding=1, activation="relu"),
        nn.Conv2D(100, kernel_size=3, padding=1),
        nn.MaxPool2D(pool_size=2, strides=2),
        nn.Activation("relu"),
        nn.Dropout(hp.dropout_conv),
        nn.Flatten(),
        nn.Dense(512, activation="relu"),
        nn.Dropout(hp.dropout_dense),
        nn.Dense(10),                                    # logits
    )
    model.initialize(mx.init.Xavier(rnd_type="uniform", factor_type="avg", magnitude=3), ctx=ctx)
    model(x_train[:1])                                   # the first call infers the input sizes
    return model


def trainer(model):
    """The snippet's training loop, for `batches` steps per call."""
    optimizer = gluon.Trainer(model.collect_params(), "sgd",
                              {"learning_rate": hp.learning_rate, "momentum": hp.momentum})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

    def train():
        order = mx.nd.array(rng.permutation(x_train.shape[0]), ctx=ctx)
        for i in range(hp.batches):
            rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
            with autograd.record():
                loss = loss_fn(model(x_train.take(rows)), y_train.take(rows))
            loss.backward()
            optimizer.step(hp.batch_size)
        mx.nd.waitall()                                  # MXNet is asynchronous: wait for the queued work
    return train


first = vggish()
second = vggish()
for mine, theirs in zip(second.collect_params().values(), first.collect_params().values()):
    mine.set_data(theirs.data())                         # the same starting weights in both

# %% tags=["variants"]
# As written: one cached graph, its memory allocated once for the fixed batch shape.
first.hybridize(static_alloc=True, static_shape=True)
as_written = trainer(first)

# Imperative: no hybridize(); every layer is a Python call that queues its own operators.
imperative = trainer(second)

# %% tags=["measure"]
variants = {"as_written": as_written, "imperative": imperative}
first_call = {}                                          # the first call, graph building included, timed once
for name, train in variants.items():
    started = time.perf_counter()
    train()
    first_call[name] = {"first_call_seconds": time.perf_counter() - started}
lesson.compare(hp, variants, facts=first_call)
