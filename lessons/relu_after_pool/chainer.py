# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # ReLU after max-pooling, in Chainer

# %% tags=["setup"]
import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("relu_after_pool")
np.random.seed(hp.seed)                                  # Chainer's initialisers draw from numpy
x_train, y_train, x_test, _ = cifar10.load(hp, layout="NCHW")


class VGGish(chainer.Chain):
    """The CNN benchmark's network (dropout left out: it does not change the order's cost)."""

    def __init__(self, block):
        super().__init__()
        self.block = block
        with self.init_scope():
            self.conv1 = L.Convolution2D(3, 50, ksize=3, pad=1)
            self.conv2 = L.Convolution2D(50, 50, ksize=3, pad=1)
            self.conv3 = L.Convolution2D(50, 100, ksize=3, pad=1)
            self.conv4 = L.Convolution2D(100, 100, ksize=3, pad=1)
            self.fc1 = L.Linear(100 * 8 * 8, 512)
            self.fc2 = L.Linear(512, 10)

    def forward(self, x):
        h = self.block(self.conv2(F.relu(self.conv1(x))))
        h = self.block(self.conv4(F.relu(self.conv3(h))))
        return self.fc2(F.relu(self.fc1(h)))           # Linear flattens its input itself


# %% tags=["variants"]
def relu_then_pool(x):
    return F.max_pooling_2d(F.relu(x), 2, 2)


def pool_then_relu(x):                                   # a quarter of the values reach the ReLU
    return F.relu(F.max_pooling_2d(x, 2, 2))


first = VGGish(relu_then_pool)
second = VGGish(pool_then_relu)
second.copyparams(first)                                 # the same weights in both
with chainer.no_backprop_mode():
    max_difference = float(abs(first(x_test).array - second(x_test).array).max())
print(f"largest difference between the two orders' logits: {max_difference:.2e}")


def trainer(model):
    optimizer = chainer.optimizers.MomentumSGD(lr=hp.learning_rate, momentum=hp.momentum)
    optimizer.setup(model)

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            loss = F.softmax_cross_entropy(model(x_train[rows]), y_train[rows])
            model.cleargrads()
            loss.backward()
            optimizer.update()
    return train


# %% tags=["measure"]
lesson.compare(hp, {"relu_then_pool": trainer(first), "pool_then_relu": trainer(second)},
               facts={"pool_then_relu": {"max_difference": max_difference}})
