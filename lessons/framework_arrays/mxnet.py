# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # Keep the data in the framework's arrays, in MXNet Gluon

# %% tags=["setup"]
import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("framework_arrays")
mx.random.seed(hp.seed)
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
x_numpy, y_numpy, _, _ = cifar10.load(hp, layout="NCHW")
n_batches = len(x_numpy) // hp.batch_size
model = nn.HybridSequential()                            # an MLP 3072-512-10: cheap steps, so feeding them shows
model.add(nn.Flatten(), nn.Dense(hp.hidden, activation="relu"), nn.Dense(10))
model.initialize(mx.init.Xavier(), ctx=ctx)
model.hybridize(static_alloc=True, static_shape=True)
trainer = gluon.Trainer(model.collect_params(), "sgd", {"learning_rate": hp.learning_rate, "momentum": hp.momentum})
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()


def train_step(x, y):
    with autograd.record():
        loss = loss_fn(model(x), y)
    loss.backward()
    trainer.step(hp.batch_size)


# %% tags=["variants"]
x_train, y_train = mx.nd.array(x_numpy, ctx=ctx), mx.nd.array(y_numpy, ctx=ctx)   # converted once


def framework_arrays():
    for i in range(n_batches):
        rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
        train_step(x_train[rows], y_train[rows])         # a slice of an NDArray: no copy from Python
    mx.nd.waitall()                                      # MXNet is asynchronous: wait for the queued work


def converted_per_step():
    for i in range(n_batches):
        rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
        # mx.nd.array copies the NumPy batch into a new NDArray, synchronously, before the step is queued.
        train_step(mx.nd.array(x_numpy[rows], ctx=ctx), mx.nd.array(y_numpy[rows], ctx=ctx))
    mx.nd.waitall()


# %% tags=["measure"]
lesson.compare(hp, {"framework_arrays": framework_arrays, "converted_per_step": converted_per_step})
