# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Theano'
#     language: python
#     name: rosetta-theano
# ---

# %% [markdown]
# # Dropout at test time, in Theano

# %% tags=["setup"]
import numpy as np
import theano
import theano.tensor as T
from theano.sandbox.rng_mrg import MRG_RandomStreams

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("dropout_at_test")
rng = np.random.default_rng(hp.seed)
streams = MRG_RandomStreams(seed=hp.seed + 1)                       # the dropout masks, drawn in the graph
floatX = theano.config.floatX
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
# An MLP reads each image as one vector of 3 × 32 × 32 = 3072 values.
x_train, x_test = x_train.reshape(len(x_train), -1), x_test.reshape(len(x_test), -1)


def layer(n_in, n_out):                                             # Glorot-uniform kernel, zero bias, as the CNN
    limit = np.sqrt(6 / (n_in + n_out))
    return (theano.shared(rng.uniform(-limit, limit, (n_in, n_out)).astype(floatX)),
            theano.shared(np.zeros(n_out, floatX)))


weights = [layer(3072, hp.hidden), layer(hp.hidden, hp.hidden), layer(hp.hidden, 10)]
params = [p for pair in weights for p in pair]


def dropout(x, training):
    # Theano has no dropout op, and a graph has no mode: the network is built with the flag, as the CNN tab does.
    keep = 1 - hp.dropout
    return x * streams.binomial(x.shape, p=keep, dtype=floatX) / keep if training else x


def mlp(x, training):
    for kernel, bias in weights[:-1]:
        x = dropout(T.nnet.relu(T.dot(x, kernel) + bias), training)
    kernel, bias = weights[-1]
    return T.dot(x, kernel) + bias


images, labels = T.matrix("images"), T.ivector("labels")
cost = T.nnet.categorical_crossentropy(T.nnet.softmax(mlp(images, training=True)), labels).mean()
updates = []
for w, g in zip(params, T.grad(cost, params)):                      # classic momentum, as the CNN tab
    v = theano.shared(np.zeros_like(w.get_value()))
    v_new = hp.momentum * v - hp.learning_rate * g
    updates += [(v, v_new), (w, w + v_new)]
train = theano.function([images, labels], cost, updates=updates)
for _ in range(hp.epochs):
    order = rng.permutation(len(x_train))
    for i in range(len(x_train) // hp.batch_size):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        train(x_train[rows], y_train[rows])

# %% tags=["variants"]
# Two compiled functions: the graph that a prediction is built from decides whether it drops units.
predict_off = theano.function([images], mlp(images, training=False).argmax(axis=1))
predict_on = theano.function([images], mlp(images, training=True).argmax(axis=1))


def dropout_off():
    return {"accuracy": float((predict_off(x_test) == y_test).mean())}


def dropout_on(seed):
    streams.seed(seed + 1)                                          # this round's masks (MRG refuses seed 0)
    return {"accuracy": float((predict_on(x_test) == y_test).mean())}   # the mistake: the training graph


# %% tags=["measure"]
lesson.compare(hp, {"dropout_off": dropout_off, "dropout_on": dropout_on})
