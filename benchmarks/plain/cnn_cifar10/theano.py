"""Plain-script twin of snippets/cnn_cifar10/theano.py: the same Theano CNN (shared variables, conv2d, pool_2d,
SGD + momentum as updates, one compiled training function), its training loop timed after compiling."""
import json
import time

import numpy as np
import theano
import theano.tensor as T
from theano.sandbox.rng_mrg import MRG_RandomStreams
from theano.tensor.signal.pool import pool_2d

from rosetta import settings
from rosetta.data import cifar10

hp = settings("cnn_cifar10")
rng = np.random.default_rng(hp.seed)
streams = MRG_RandomStreams(seed=hp.seed + 1)             # its seed must not be 0
floatX = theano.config.floatX

x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")


def layer(*shape):                                        # Glorot-uniform kernel, zero bias
    receptive_field = np.prod(shape[2:])
    fan_in, fan_out = (shape[1] * receptive_field, shape[0] * receptive_field) if len(shape) == 4 else shape
    limit = np.sqrt(6 / (fan_in + fan_out))
    kernel = theano.shared(rng.uniform(-limit, limit, shape).astype(floatX))
    return kernel, theano.shared(np.zeros(shape[0] if len(shape) == 4 else shape[1], floatX))


conv1, conv2, conv3, conv4 = layer(50, 3, 3, 3), layer(50, 50, 3, 3), layer(100, 50, 3, 3), layer(100, 100, 3, 3)
fc1, fc2 = layer(100 * 8 * 8, 512), layer(512, 10)
params = [p for pair in (conv1, conv2, conv3, conv4, fc1, fc2) for p in pair]


def conv(x, kernel, bias):
    return T.nnet.conv2d(x, kernel, border_mode="half", filter_flip=False) + bias.dimshuffle("x", 0, "x", "x")


def dropout(x, rate):
    return x * streams.binomial(x.shape, p=1 - rate, dtype=floatX) / (1 - rate)


images, labels = T.tensor4(), T.ivector()
x = T.nnet.relu(conv(images, *conv1))
x = dropout(T.nnet.relu(pool_2d(conv(x, *conv2), ws=(2, 2), ignore_border=True)), hp.dropout_conv)
x = T.nnet.relu(conv(x, *conv3))
x = dropout(T.nnet.relu(pool_2d(conv(x, *conv4), ws=(2, 2), ignore_border=True)), hp.dropout_conv)
x = dropout(T.nnet.relu(T.dot(x.flatten(2), fc1[0]) + fc1[1]), hp.dropout_dense)
cost = T.nnet.categorical_crossentropy(T.nnet.softmax(T.dot(x, fc2[0]) + fc2[1]), labels).mean()
updates = []
for w, g in zip(params, T.grad(cost, params)):
    v = theano.shared(np.zeros_like(w.get_value()))
    v_new = hp.momentum * v - hp.learning_rate * g
    updates += [(v, v_new), (w, w + v_new)]
train = theano.function([images, labels], cost, updates=updates)   # compiled here, before the clock starts

shuffle = getattr(hp, "shuffle", True)      # a new order every epoch; the equivalence checks turn it off
n_batches = len(x_train) // hp.batch_size
started = time.perf_counter()
for _ in range(hp.epochs):
    order = rng.permutation(len(x_train)) if shuffle else np.arange(len(x_train))
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        train(x_train[rows], y_train[rows])                # synchronous: returns when the step is done
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": hp.epochs * n_batches * hp.batch_size}))
