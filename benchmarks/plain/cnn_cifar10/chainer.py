"""Plain-script twin of snippets/cnn_cifar10/chainer.py: the same Chainer CNN, its training loop timed."""
import json
import time

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np

from rosetta import settings
from rosetta.data import cifar10

hp = settings("cnn_cifar10")
rng = np.random.default_rng(hp.seed)
np.random.seed(hp.seed)                                  # Chainer's initialisers draw from numpy
try:
    import cupy as xp
    device = chainer.get_device("@cupy:0")
except ImportError:
    xp, device = np, chainer.get_device("@numpy")

x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = device.send(x_train), device.send(y_train)


class VGGish(chainer.Chain):
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
        h = F.dropout(F.relu(self.fc1(h)), hp.dropout_dense)
        return self.fc2(h)


model = VGGish()
model.to_device(device)
optimizer = chainer.optimizers.MomentumSGD(lr=hp.learning_rate, momentum=hp.momentum)
optimizer.setup(model)

shuffle = getattr(hp, "shuffle", True)      # a new order every epoch; the equivalence checks turn it off
n_batches = len(x_train) // hp.batch_size
started = time.perf_counter()
for _ in range(hp.epochs):
    order = device.send(rng.permutation(len(x_train)) if shuffle else np.arange(len(x_train)))
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        loss = F.softmax_cross_entropy(model(x_train[rows]), y_train[rows])
        model.cleargrads()
        loss.backward()
        optimizer.update()
if xp is not np:
    device.device.synchronize()
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": hp.epochs * n_batches * hp.batch_size}))
