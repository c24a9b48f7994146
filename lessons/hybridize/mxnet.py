# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # Hybridize a Gluon network, in MXNet Gluon

# %% tags=["setup"]
import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("hybridize")
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = mx.nd.array(x_train, ctx=ctx), mx.nd.array(y_train, ctx=ctx)
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()


def vggish():
    """The CNN benchmark's network, with the same seeded weights every time it is made."""
    model = nn.HybridSequential()
    model.add(
        nn.Conv2D(50, kernel_size=3, padding=1, activation="relu"),
        nn.Conv2D(50, kernel_size=3, padding=1), nn.MaxPool2D(2, 2), nn.Activation("relu"),
        nn.Dropout(hp.dropout_conv),
        nn.Conv2D(100, kernel_size=3, padding=1, activation="relu"),
        nn.Conv2D(100, kernel_size=3, padding=1), nn.MaxPool2D(2, 2), nn.Activation("relu"),
        nn.Dropout(hp.dropout_conv),
        nn.Flatten(), nn.Dense(512, activation="relu"), nn.Dropout(hp.dropout_dense), nn.Dense(10),
    )
    mx.random.seed(hp.seed)
    model.initialize(mx.init.Xavier(rnd_type="uniform", factor_type="avg", magnitude=3), ctx=ctx)
    model(x_train[:1])                                   # infer the shapes and draw the weights now
    return model


def trainer(model):
    sgd = gluon.Trainer(model.collect_params(), "sgd", {"learning_rate": hp.learning_rate, "momentum": hp.momentum})

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            with autograd.record():
                loss = loss_fn(model(x_train[rows]), y_train[rows])
            loss.backward()
            sgd.step(hp.batch_size)
        mx.nd.waitall()                                  # MXNet is asynchronous: wait for the queued work
    return train


# %% tags=["variants"]
imperative = vggish()                                    # not hybridized: Python sends each operator
hybridized = vggish()
hybridized.hybridize()                                   # traced at the next call, then one cached graph
static = vggish()
static.hybridize(static_alloc=True, static_shape=True)   # ...whose memory is planned once, for one shape

# %% tags=["measure"]
lesson.compare(hp, {"imperative": trainer(imperative), "hybridized": trainer(hybridized), "static": trainer(static)})
