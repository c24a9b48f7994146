# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # The CNN's training step, as written and tuned, in Chainer
# Chainer's CPU speed-up, iDeep (`chainer.config.use_ideep`), needs the `ideep4py` package, which
# has no build for this Python, so on a CPU its convolutions are numpy's. What is left to switch
# off is its per-call type checking.

# %% tags=["setup"]
import time

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("tuned_cnn")
rng = np.random.default_rng(hp.seed)
np.random.seed(hp.seed)                                  # Chainer's initialisers draw from numpy
try:
    import cupy  # noqa: F401                            # arrays on the GPU through CuPy
    device = chainer.get_device("@cupy:0")
except ImportError:
    device = chainer.get_device("@numpy")
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = device.send(x_train), device.send(y_train)


class VGGish(chainer.Chain):
    """The CNN benchmark's network, copied from its snippet."""

    def __init__(self, n_classes=10):
        super().__init__()
        glorot = chainer.initializers.GlorotUniform()
        with self.init_scope():
            self.conv1 = L.Convolution2D(3, 50, ksize=3, pad=1, initialW=glorot)
            self.conv2 = L.Convolution2D(50, 50, ksize=3, pad=1, initialW=glorot)
            self.conv3 = L.Convolution2D(50, 100, ksize=3, pad=1, initialW=glorot)
            self.conv4 = L.Convolution2D(100, 100, ksize=3, pad=1, initialW=glorot)
            self.fc1 = L.Linear(100 * 8 * 8, 512, initialW=glorot)
            self.fc2 = L.Linear(512, n_classes, initialW=glorot)

    def forward(self, x):
        h = F.relu(self.conv1(x))
        h = F.dropout(F.relu(F.max_pooling_2d(self.conv2(h), 2, 2)), hp.dropout_conv)
        h = F.relu(self.conv3(h))
        h = F.dropout(F.relu(F.max_pooling_2d(self.conv4(h), 2, 2)), hp.dropout_conv)
        h = F.dropout(F.relu(self.fc1(h)), hp.dropout_dense)
        return self.fc2(h)


def train_steps(model, optimizer):
    """The snippet's training loop, for `batches` steps."""
    order = device.send(rng.permutation(len(x_train)))
    for i in range(hp.batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        loss = F.softmax_cross_entropy(model(x_train[rows]), y_train[rows])
        model.cleargrads()
        loss.backward()
        optimizer.update()
    float(loss.array)                                    # waits for the GPU, if there is one


first = VGGish()
second = VGGish()
second.copyparams(first)                                 # the same starting weights in both
optimizers = []
for model in (first, second):
    model.to_device(device)
    optimizers.append(chainer.optimizers.MomentumSGD(lr=hp.learning_rate, momentum=hp.momentum))
    optimizers[-1].setup(model)


# %% tags=["variants"]
def as_written():
    train_steps(first, optimizers[0])


def no_type_check():
    # Every Chainer function checks its inputs' shapes and dtypes before it runs (type_check,
    # on by default; CHAINER_TYPE_CHECK=0 turns it off for a whole process).
    with chainer.using_config("type_check", False):
        train_steps(second, optimizers[1])


# %% tags=["measure"]
variants = {"as_written": as_written, "no_type_check": no_type_check}
first_call = {}                                          # the first call, timed once
for name, train in variants.items():
    started = time.perf_counter()
    train()
    first_call[name] = {"first_call_seconds": time.perf_counter() - started}
lesson.compare(hp, variants, facts=first_call)
