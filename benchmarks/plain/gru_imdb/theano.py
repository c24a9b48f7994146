"""Plain-script twin of snippets/gru_imdb/theano.py: the same Theano GRU classifier (theano.scan over the cell,
Adam as updates, one compiled training function), its training loop timed after compiling."""
import json
import sys
import time

import numpy as np
import theano
import theano.tensor as T

from rosetta import settings
from rosetta.data import imdb

hp = settings("gru_imdb")
rng = np.random.default_rng(hp.seed)
floatX = theano.config.floatX
sys.modules["theano.scan_module.scan_perform_ext"] = None   # scan's Cython loop does not build on Python 3.11

x_train, y_train, _, _ = imdb.load(hp)


def uniform(*shape):
    return theano.shared(rng.uniform(-hp.init_scale, hp.init_scale, shape).astype(floatX))


def zeros(*shape):
    return theano.shared(np.zeros(shape, floatX))


H = hp.hidden_size
embedding = uniform(hp.vocabulary_size, hp.embedding_size)
input_kernel, recurrent_kernel = uniform(hp.embedding_size, 3 * H), uniform(H, 3 * H)
input_bias, recurrent_bias = zeros(3 * H), zeros(3 * H)
fc_kernel, fc_bias = uniform(H, 2), zeros(2)
params = [embedding, input_kernel, recurrent_kernel, input_bias, recurrent_bias, fc_kernel, fc_bias]


def gru_step(x, h, recurrent_kernel, recurrent_bias):
    u = T.dot(h, recurrent_kernel) + recurrent_bias
    r = T.nnet.sigmoid(x[:, :H] + u[:, :H])
    z = T.nnet.sigmoid(x[:, H:2 * H] + u[:, H:2 * H])
    n = T.tanh(x[:, 2 * H:] + r * u[:, 2 * H:])
    return (1 - z) * n + z * h


tokens, labels = T.imatrix(), T.ivector()
x = T.dot(embedding[tokens.T], input_kernel) + input_bias
states, _ = theano.scan(gru_step, sequences=x, outputs_info=T.zeros((tokens.shape[0], H), dtype=floatX),
                        non_sequences=[recurrent_kernel, recurrent_bias], strict=True)
cost = T.nnet.categorical_crossentropy(T.nnet.softmax(T.dot(states[-1], fc_kernel) + fc_bias), labels).mean()
t = theano.shared(np.float32(0))
t_new = t + 1
lr = hp.learning_rate * T.sqrt(1 - hp.beta_2 ** t_new) / (1 - hp.beta_1 ** t_new)
updates = [(t, t_new)]
for w, g in zip(params, T.grad(cost, params)):
    m, v = theano.shared(np.zeros_like(w.get_value())), theano.shared(np.zeros_like(w.get_value()))
    m_new = hp.beta_1 * m + (1 - hp.beta_1) * g
    v_new = hp.beta_2 * v + (1 - hp.beta_2) * T.sqr(g)
    updates += [(m, m_new), (v, v_new), (w, w - lr * m_new / (T.sqrt(v_new) + hp.epsilon))]
train = theano.function([tokens, labels], cost, updates=updates)   # compiled here, before the clock starts

shuffle = getattr(hp, "shuffle", True)      # a new order every epoch; the equivalence checks turn it off
n_batches = len(x_train) // hp.batch_size
started = time.perf_counter()
for _ in range(hp.epochs):
    order = rng.permutation(len(x_train)) if shuffle else np.arange(len(x_train))
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        train(x_train[rows], y_train[rows])
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": hp.epochs * n_batches * hp.batch_size}))
