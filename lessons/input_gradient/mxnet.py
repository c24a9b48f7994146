# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # No gradient to the input, in MXNet Gluon

# %% tags=["setup"]
import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("input_gradient")
mx.random.seed(hp.seed)
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = mx.nd.array(x_train, ctx=ctx), mx.nd.array(y_train, ctx=ctx)
model = nn.HybridSequential()                            # the CNN benchmark's network, without dropout
model.add(nn.Conv2D(50, 3, padding=1, activation="relu"), nn.Conv2D(50, 3, padding=1), nn.MaxPool2D(2),
          nn.Activation("relu"), nn.Conv2D(100, 3, padding=1, activation="relu"), nn.Conv2D(100, 3, padding=1),
          nn.MaxPool2D(2), nn.Activation("relu"), nn.Flatten(), nn.Dense(512, activation="relu"), nn.Dense(10))
model.initialize(mx.init.Xavier(), ctx=ctx)
model.hybridize(static_alloc=True, static_shape=True)
optimizer = gluon.Trainer(model.collect_params(), "sgd", {"learning_rate": hp.learning_rate, "momentum": hp.momentum})
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()


def trainer(ask_for_input_gradient):
    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            images = x_train[rows]
            if ask_for_input_gradient:
                images.attach_grad()                     # a buffer for its gradient: backward fills it
            with autograd.record():
                loss = loss_fn(model(images), y_train[rows])
            loss.backward()
            optimizer.step(hp.batch_size)
        mx.nd.waitall()                                  # MXNet is asynchronous: wait for the queued work
    return train


# %% tags=["variants"]
no_input_gradient = trainer(ask_for_input_gradient=False)   # the weights' gradients only
input_gradient = trainer(ask_for_input_gradient=True)       # and the images' gradient, asked for

# %% tags=["measure"]
lesson.compare(hp, {"no_input_gradient": no_input_gradient, "input_gradient": input_gradient})
