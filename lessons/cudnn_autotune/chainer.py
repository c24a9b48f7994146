# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # cuDNN autotuning for fixed shapes, in Chainer

# %% tags=["setup"]
import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("cudnn_autotune")
try:
    import cupy  # noqa: F401  (arrays on the GPU, and cuDNN, through CuPy)
    device = chainer.get_device("@cupy:0")
except ImportError:
    device = chainer.get_device("@numpy")
print(f"on {device}" + ("" if chainer.should_use_cudnn(">=auto") else ": no cuDNN, so autotune changes nothing here"))
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = device.send(x_train), device.send(y_train)


class VGGish(chainer.Chain):
    """The CNN benchmark's network."""

    def __init__(self):
        super().__init__()
        glorot = chainer.initializers.GlorotUniform()
        with self.init_scope():
            self.conv1 = L.Convolution2D(3, 50, ksize=3, pad=1, initialW=glorot)
            self.conv2 = L.Convolution2D(50, 50, ksize=3, pad=1, initialW=glorot)
            self.conv3 = L.Convolution2D(50, 100, ksize=3, pad=1, initialW=glorot)
            self.conv4 = L.Convolution2D(100, 100, ksize=3, pad=1, initialW=glorot)
            self.fc1 = L.Linear(100 * 8 * 8, 512, initialW=glorot)
            self.fc2 = L.Linear(512, 10, initialW=glorot)

    def forward(self, x):
        h = F.relu(self.conv1(x))
        h = F.dropout(F.relu(F.max_pooling_2d(self.conv2(h), 2, 2)), hp.dropout_conv)
        h = F.relu(self.conv3(h))
        h = F.dropout(F.relu(F.max_pooling_2d(self.conv4(h), 2, 2)), hp.dropout_conv)
        return self.fc2(F.dropout(F.relu(self.fc1(h)), hp.dropout_dense))


def trainer():
    """Training steps of a copy of the network (the same seeded weights for every variant)."""
    np.random.seed(hp.seed)                              # Chainer's initialisers draw from numpy
    model = VGGish()
    model.to_device(device)
    optimizer = chainer.optimizers.MomentumSGD(lr=hp.learning_rate, momentum=hp.momentum)
    optimizer.setup(model)

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            loss = F.softmax_cross_entropy(model(x_train[rows]), y_train[rows])
            model.cleargrads()
            loss.backward()
            optimizer.update()
        float(loss.array)                                # waits for the GPU's queue
    return train


# %% tags=["variants"]
# chainer.config is read at every call (and per thread), so a `with` block sets it for one call.
train_heuristic, train_autotuned = trainer(), trainer()


def heuristic():
    with chainer.using_config("autotune", False):        # cuDNN's heuristic picks each algorithm
        train_heuristic()


def autotuned():
    with chainer.using_config("autotune", True):         # the first call per shape times the algorithms
        train_autotuned()                                # (the warm-up) and keeps the fastest


# %% tags=["measure"]
lesson.compare(hp, {"heuristic": heuristic, "autotuned": autotuned})
