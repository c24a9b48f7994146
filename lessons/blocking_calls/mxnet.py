# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # Blocking reads in the training loop, in MXNet Gluon

# %% tags=["setup"]
import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("blocking_calls")
mx.random.seed(hp.seed)
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = mx.nd.array(x_train, ctx=ctx), mx.nd.array(y_train, ctx=ctx)

model = nn.HybridSequential()                            # the CNN benchmark's network
model.add(
    nn.Conv2D(50, kernel_size=3, padding=1, activation="relu"),
    nn.Conv2D(50, kernel_size=3, padding=1), nn.MaxPool2D(2, 2), nn.Activation("relu"), nn.Dropout(hp.dropout_conv),
    nn.Conv2D(100, kernel_size=3, padding=1, activation="relu"),
    nn.Conv2D(100, kernel_size=3, padding=1), nn.MaxPool2D(2, 2), nn.Activation("relu"), nn.Dropout(hp.dropout_conv),
    nn.Flatten(), nn.Dense(512, activation="relu"), nn.Dropout(hp.dropout_dense), nn.Dense(10),
)
model.initialize(mx.init.Xavier(rnd_type="uniform", factor_type="avg", magnitude=3), ctx=ctx)
model.hybridize(static_alloc=True, static_shape=True)
trainer = gluon.Trainer(model.collect_params(), "sgd", {"learning_rate": hp.learning_rate, "momentum": hp.momentum})
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()


def train_step(i):
    rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
    with autograd.record():
        loss = loss_fn(model(x_train[rows]), y_train[rows])
    loss.backward()
    trainer.step(hp.batch_size)
    return loss.mean()                                   # an NDArray: queued, not yet computed


# %% tags=["variants"]
# MXNet's engine is asynchronous: Python queues operators and runs ahead of them, until
# something needs a value. asscalar() (like asnumpy(), print, float) makes Python wait.
def read_every_step():
    running = 0.0
    for i in range(hp.batches):
        running += train_step(i).asscalar()              # waits for this step's loss
    mx.nd.waitall()                                      # and for the last update
    return {"loss": running / hp.batches}


def read_at_end():
    running = mx.nd.zeros(1, ctx=ctx)
    for i in range(hp.batches):
        running += train_step(i)                         # summed by the engine, nothing waits
    mean = running.asscalar() / hp.batches               # the one read, at the end
    mx.nd.waitall()                                      # and the last update, as on the left
    return {"loss": mean}


# %% tags=["measure"]
lesson.compare(hp, {"read_every_step": read_every_step, "read_at_end": read_at_end})
