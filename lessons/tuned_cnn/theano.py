# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Theano'
#     language: python
#     name: rosetta-theano
# ---

# %% [markdown]
# # The CNN's training step, as written and tuned, in Theano
# The snippet compiles its step with `theano.function`'s defaults (the FAST_RUN optimizations, the
# C virtual machine that frees each intermediate array as soon as it has been used). Theano's
# performance advice for a step called again and again: keep those arrays between calls
# (`allow_gc=False`, the `cvm_nogc` linker), trading memory for the allocations.

# %% tags=["setup"]
import time

import numpy as np
import theano
import theano.tensor as T
from theano.sandbox.rng_mrg import MRG_RandomStreams
from theano.tensor.signal.pool import pool_2d

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("tuned_cnn")
floatX = theano.config.floatX                            # float32, set in THEANO_FLAGS
rng = np.random.default_rng(hp.seed)
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
y_train = y_train.astype("int32")
initial = []                                             # Glorot-uniform kernels, zero biases, as the snippet
for shape in [(50, 3, 3, 3), (50, 50, 3, 3), (100, 50, 3, 3), (100, 100, 3, 3), (100 * 8 * 8, 512), (512, 10)]:
    fan_in, fan_out = (shape[1] * 9, shape[0] * 9) if len(shape) == 4 else shape
    limit = np.sqrt(6 / (fan_in + fan_out))
    initial += [rng.uniform(-limit, limit, shape).astype(floatX), np.zeros(shape[0 if len(shape) == 4 else 1], floatX)]
images, labels = T.tensor4("images"), T.ivector("labels")


def vggish(x, params, streams):
    """The CNN benchmark's network, copied from its snippet (dropout masks drawn inside the graph)."""
    c1, b1, c2, b2, c3, b3, c4, b4, f1, d1, f2, d2 = params

    def conv(x, kernel, bias):
        return T.nnet.conv2d(x, kernel, border_mode="half", filter_flip=False) + bias.dimshuffle("x", 0, "x", "x")

    def dropout(x, rate):
        return x * streams.binomial(x.shape, p=1 - rate, dtype=floatX) / (1 - rate)
    x = T.nnet.relu(pool_2d(conv(T.nnet.relu(conv(x, c1, b1)), c2, b2), ws=(2, 2), ignore_border=True))
    x = dropout(x, hp.dropout_conv)
    x = T.nnet.relu(pool_2d(conv(T.nnet.relu(conv(x, c3, b3)), c4, b4), ws=(2, 2), ignore_border=True))
    x = dropout(x, hp.dropout_conv)
    x = dropout(T.nnet.relu(T.dot(x.flatten(2), f1) + d1), hp.dropout_dense)
    return T.dot(x, f2) + d2


def trainer(mode):
    """The snippet's training step on a fresh copy of the same starting weights, compiled in `mode`."""
    params = [theano.shared(value.copy()) for value in initial]
    logits = vggish(images, params, MRG_RandomStreams(seed=hp.seed + 1))
    cost = T.nnet.categorical_crossentropy(T.nnet.softmax(logits), labels).mean()
    updates = []
    for w, g in zip(params, T.grad(cost, params)):       # classic momentum, as the snippet
        v = theano.shared(np.zeros_like(w.get_value()))
        v_new = hp.momentum * v - hp.learning_rate * g
        updates += [(v, v_new), (w, w + v_new)]
    step = theano.function([images, labels], cost, updates=updates, mode=mode)

    def train():
        order = rng.permutation(len(x_train))            # the snippet shuffles every epoch
        for i in range(hp.batches):
            rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
            step(x_train[rows], y_train[rows])           # on a CPU, a Theano call returns when it has run
    return train


# %% tags=["variants"]
variants = {
    "as_written": trainer(theano.compile.mode.get_default_mode()),      # FAST_RUN, the "cvm" linker
    "no_gc": trainer(theano.Mode(linker="cvm_nogc", optimizer="fast_run")),   # intermediates kept between calls
}

# %% tags=["measure"]
first_call = {}                                          # the first call, timed once
for name, train in variants.items():
    started = time.perf_counter()
    train()
    first_call[name] = {"first_call_seconds": time.perf_counter() - started}
lesson.compare(hp, variants, facts=first_call)
