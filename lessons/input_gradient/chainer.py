# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # No gradient to the input, in Chainer

# %% tags=["setup"]
import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("input_gradient")
np.random.seed(hp.seed)                                  # Chainer's initialisers draw from numpy
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")


class VGGish(chainer.Chain):
    """The CNN benchmark's network, without dropout."""

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
        h = F.relu(F.max_pooling_2d(self.conv2(F.relu(self.conv1(x))), 2, 2))
        h = F.relu(F.max_pooling_2d(self.conv4(F.relu(self.conv3(h))), 2, 2))
        return self.fc2(F.relu(self.fc1(h)))


model = VGGish()
optimizer = chainer.optimizers.MomentumSGD(lr=hp.learning_rate, momentum=hp.momentum)
optimizer.setup(model)


def trainer(images_for):
    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            loss = F.softmax_cross_entropy(model(images_for(x_train[rows])), y_train[rows])
            model.cleargrads()
            loss.backward()                              # fills the images' .grad too, where it was asked for
            optimizer.update()
    return train


# %% tags=["variants"]
def as_they_are(images):
    return images                                        # a plain array: no gradient flows into it


def asking_for_their_gradient(images):
    return chainer.Variable(images)                      # a Variable requires its gradient by default


# %% tags=["measure"]
lesson.compare(hp, {"no_input_gradient": trainer(as_they_are), "input_gradient": trainer(asking_for_their_gradient)})
