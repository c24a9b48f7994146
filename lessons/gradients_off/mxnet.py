# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # Gradients off for inference, in MXNet Gluon

# %% tags=["setup"]
import mxnet as mx
from mxnet import autograd
from mxnet.gluon import nn

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("gradients_off")
mx.random.seed(hp.seed)
_, _, x_test, _ = cifar10.load(hp, layout="NCHW")
batches = [mx.nd.array(x_test[i:i + hp.batch_size]) for i in range(0, len(x_test), hp.batch_size)]

# The CNN benchmark's network; its dropout is left out (in inference mode it is the identity).
model = nn.HybridSequential()
model.add(
    nn.Conv2D(50, kernel_size=3, padding=1, activation="relu"),
    nn.Conv2D(50, kernel_size=3, padding=1), nn.MaxPool2D(2), nn.Activation("relu"),
    nn.Conv2D(100, kernel_size=3, padding=1, activation="relu"),
    nn.Conv2D(100, kernel_size=3, padding=1), nn.MaxPool2D(2), nn.Activation("relu"),
    nn.Dense(512, activation="relu"),                    # Dense flattens its input itself
    nn.Dense(10),
)
model.initialize()
model.hybridize()


# %% tags=["variants"]
def predict():
    # All the test logits, kept until the last batch is done, as code that goes on to an accuracy or a
    # test loss keeps them. While recording, each batch's logits hold on to that batch's graph.
    logits = mx.nd.concat(*[model(batch) for batch in batches], dim=0)
    logits.wait_to_read()                                # MXNet is asynchronous: wait for the work queued
    del logits                                           # (what comes next is not part of the lesson)


def gradients_off():
    predict()                                            # outside autograd.record(): nothing recorded


def gradients_on():
    with autograd.record(train_mode=False):              # recording, with the layers in inference mode
        predict()


# %% tags=["measure"]
lesson.compare(hp, {"gradients_off": gradients_off, "gradients_on": gradients_on}, memory=True)
