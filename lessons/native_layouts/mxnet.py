# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # Native layouts, in MXNet Gluon

# %% tags=["setup"]
import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("native_layouts")
mx.random.seed(hp.seed)
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = mx.nd.array(x_train, ctx=ctx), mx.nd.array(y_train, ctx=ctx)


def vggish(layout):
    """The CNN benchmark's network (dropout left out); convolutions and pooling in `layout`."""
    model = nn.HybridSequential()
    model.add(nn.Conv2D(50, kernel_size=3, padding=1, activation="relu", layout=layout),
              nn.Conv2D(50, kernel_size=3, padding=1, layout=layout),
              nn.MaxPool2D(pool_size=2, strides=2, layout=layout),
              nn.Activation("relu"),
              nn.Conv2D(100, kernel_size=3, padding=1, activation="relu", layout=layout),
              nn.Conv2D(100, kernel_size=3, padding=1, layout=layout),
              nn.MaxPool2D(pool_size=2, strides=2, layout=layout),
              nn.Activation("relu"),
              nn.Flatten(),
              nn.Dense(512, activation="relu"),
              nn.Dense(10))                              # logits
    model.initialize(mx.init.Xavier(), ctx=ctx)
    model.hybridize(static_alloc=True, static_shape=True)
    return model


def trainer(model, images):
    optimizer = gluon.Trainer(model.collect_params(), "sgd",
                              {"learning_rate": hp.learning_rate, "momentum": hp.momentum})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            with autograd.record():
                loss = loss_fn(model(images[rows]), y_train[rows])
            loss.backward()
            optimizer.step(hp.batch_size)
        mx.nd.waitall()                                  # MXNet is asynchronous: wait for the queued work
    return train


# %% tags=["variants"]
variants = {"channels_first": trainer(vggish("NCHW"), x_train)}          # MXNet's default
# MXNet's CPU convolutions (oneDNN's and its own) only run NCHW: NHWC needs a GPU (cuDNN).
if ctx.device_type == "gpu":
    variants["channels_last"] = trainer(vggish("NHWC"), x_train.transpose((0, 2, 3, 1)))
print("variants that run on", ctx, ":", ", ".join(variants))

# %% tags=["measure"]
lesson.compare(hp, variants)
