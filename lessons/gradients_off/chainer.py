# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # Gradients off for inference, in Chainer

# %% tags=["setup"]
import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("gradients_off")
np.random.seed(hp.seed)                                  # Chainer's initialisers draw from numpy
_, _, x_test, _ = cifar10.load(hp, layout="NCHW")
batches = [x_test[i:i + hp.batch_size] for i in range(0, len(x_test), hp.batch_size)]


class VGGish(chainer.Chain):
    """The CNN benchmark's network; its dropout is left out (in inference mode it is the identity)."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(3, 50, ksize=3, pad=1)
            self.conv2 = L.Convolution2D(50, 50, ksize=3, pad=1)
            self.conv3 = L.Convolution2D(50, 100, ksize=3, pad=1)
            self.conv4 = L.Convolution2D(100, 100, ksize=3, pad=1)
            self.fc1 = L.Linear(100 * 8 * 8, 512)
            self.fc2 = L.Linear(512, 10)

    def forward(self, x):
        h = F.relu(F.max_pooling_2d(self.conv2(F.relu(self.conv1(x))), 2))
        h = F.relu(F.max_pooling_2d(self.conv4(F.relu(self.conv3(h))), 2))
        return self.fc2(F.relu(self.fc1(h)))             # Linear flattens its input itself


model = VGGish()


# %% tags=["variants"]
def predict():
    # All the test logits, kept until the last batch is done, as code that goes on to an accuracy or a
    # test loss keeps them. While recording, each batch's logits hold on to that batch's graph.
    logits = F.concat([model(batch) for batch in batches], axis=0)
    del logits                                           # (what comes next is not part of the lesson)


def gradients_off():
    with chainer.no_backprop_mode():                     # nothing recorded: each activation is freed once used
        predict()


def gradients_on():
    predict()                                            # Chainer records by default (chainer.config.enable_backprop)


# %% tags=["measure"]
lesson.compare(hp, {"gradients_off": gradients_off, "gradients_on": gradients_on}, memory=True)
