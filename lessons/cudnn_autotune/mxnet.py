# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # cuDNN autotuning for fixed shapes, in MXNet Gluon

# %% tags=["setup"]
import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("cudnn_autotune")
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
print(f"on {ctx}" + ("" if ctx.device_type == "gpu" else ": no cuDNN, so cudnn_tune changes nothing here"))
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = mx.nd.array(x_train, ctx=ctx), mx.nd.array(y_train, ctx=ctx)
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()


class Conv2D(nn.Conv2D):
    """Gluon's Conv2D, handing the Convolution operator its cudnn_tune argument (the layer has no
    such argument: by default the operator reads MXNET_CUDNN_AUTOTUNE_DEFAULT from the environment,
    once for the whole process)."""

    def __init__(self, *args, cudnn_tune, **kwargs):
        super().__init__(*args, **kwargs)
        self._kwargs["cudnn_tune"] = cudnn_tune          # the operator's keyword arguments


def vggish(cudnn_tune):
    """The CNN benchmark's network, with the same seeded weights every time it is made."""
    model = nn.HybridSequential()
    model.add(
        Conv2D(50, kernel_size=3, padding=1, activation="relu", cudnn_tune=cudnn_tune),
        Conv2D(50, kernel_size=3, padding=1, cudnn_tune=cudnn_tune), nn.MaxPool2D(2, 2), nn.Activation("relu"),
        nn.Dropout(hp.dropout_conv),
        Conv2D(100, kernel_size=3, padding=1, activation="relu", cudnn_tune=cudnn_tune),
        Conv2D(100, kernel_size=3, padding=1, cudnn_tune=cudnn_tune), nn.MaxPool2D(2, 2), nn.Activation("relu"),
        nn.Dropout(hp.dropout_conv),
        nn.Flatten(), nn.Dense(512, activation="relu"), nn.Dropout(hp.dropout_dense), nn.Dense(10),
    )
    mx.random.seed(hp.seed)
    model.initialize(mx.init.Xavier(rnd_type="uniform", factor_type="avg", magnitude=3), ctx=ctx)
    model.hybridize(static_alloc=True, static_shape=True)
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
# "off": cuDNN's heuristic choice. "limited_workspace" (MXNet's default, MXNET_CUDNN_AUTOTUNE_DEFAULT=1):
# at the first call for a shape (the warm-up), time the algorithms that fit the workspace, keep the fastest.
heuristic = trainer(vggish(cudnn_tune="off"))
autotuned = trainer(vggish(cudnn_tune="limited_workspace"))

# %% tags=["measure"]
lesson.compare(hp, {"heuristic": heuristic, "autotuned": autotuned})
