"""Plain-script twin of snippets/cnn_cifar10/mxnet.py: the same hybridized Gluon CNN, its training loop timed."""
import json
import time

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon
from mxnet.gluon import nn

from rosetta import settings
from rosetta.data import cifar10

hp = settings("cnn_cifar10")
mx.random.seed(hp.seed)
rng = np.random.default_rng(hp.seed)
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()

x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = mx.nd.array(x_train, ctx=ctx), mx.nd.array(y_train, ctx=ctx)

model = nn.HybridSequential()
model.add(
    nn.Conv2D(50, kernel_size=3, padding=1, activation="relu"),
    nn.Conv2D(50, kernel_size=3, padding=1),
    nn.MaxPool2D(pool_size=2, strides=2),
    nn.Activation("relu"),
    nn.Dropout(hp.dropout_conv),
    nn.Conv2D(100, kernel_size=3, padding=1, activation="relu"),
    nn.Conv2D(100, kernel_size=3, padding=1),
    nn.MaxPool2D(pool_size=2, strides=2),
    nn.Activation("relu"),
    nn.Dropout(hp.dropout_conv),
    nn.Flatten(),
    nn.Dense(512, activation="relu"),
    nn.Dropout(hp.dropout_dense),
    nn.Dense(10),
)
model.initialize(mx.init.Xavier(rnd_type="uniform", factor_type="avg", magnitude=3), ctx=ctx)
model.hybridize(static_alloc=True, static_shape=True)
trainer = gluon.Trainer(model.collect_params(), "sgd", {"learning_rate": hp.learning_rate, "momentum": hp.momentum})
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

shuffle = getattr(hp, "shuffle", True)      # a new order every epoch; the equivalence checks turn it off
n_batches = len(x_train) // hp.batch_size
started = time.perf_counter()
for _ in range(hp.epochs):
    order = mx.nd.array(rng.permutation(len(x_train)) if shuffle else np.arange(len(x_train)), ctx=ctx)
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        with autograd.record():
            loss = loss_fn(model(x_train.take(rows)), y_train.take(rows))
        loss.backward()
        trainer.step(hp.batch_size)
mx.nd.waitall()                                          # asynchronous engine: wait before stopping the clock
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": hp.epochs * n_batches * hp.batch_size}))
