# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # Input pipeline or slices of arrays in memory, in MXNet Gluon

# %% tags=["setup"]
import mxnet as mx
import numpy as np
from mxnet import autograd, gluon
from mxnet.gluon import nn

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("input_pipeline")
mx.random.seed(hp.seed)
rng = np.random.default_rng(hp.seed)
ctx = mx.cpu()
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = mx.nd.array(x_train, ctx=ctx), mx.nd.array(y_train, ctx=ctx)   # the whole subset in memory
n_batches = len(x_train) // hp.batch_size

# An MLP 3072-512-10: a step costs a few milliseconds, so the cost of feeding it shows.
model = nn.HybridSequential()
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
    return loss


# %% tags=["variants"]
def slicing():
    order = mx.nd.array(rng.permutation(len(x_train)), ctx=ctx)   # a new order each epoch
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        loss = train_step(x_train.take(rows), y_train.take(rows))   # one gather per batch
    loss.wait_to_read()                                  # MXNet is asynchronous: wait for the last step


def loader(workers):
    # The DataLoader indexes the dataset one sample at a time and stacks the batch; with workers,
    # a pool of processes (forked once, when the loader is made) does that in the background
    # and hands the batches over in shared memory.
    batches = gluon.data.DataLoader(gluon.data.ArrayDataset(x_train, y_train), batch_size=hp.batch_size,
                                    shuffle=True, last_batch="discard", num_workers=workers)

    def epoch():
        for x, y in batches:                             # workers' batches live in shared memory (cpu_shared)
            loss = train_step(x.as_in_context(ctx), y.as_in_context(ctx))
        loss.wait_to_read()
    return epoch


# %% tags=["measure"]
lesson.compare(hp, {"slicing": slicing, "pipeline": loader(hp.workers), "pipeline_in_process": loader(0)})
