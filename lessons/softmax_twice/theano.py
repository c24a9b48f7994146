# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Theano'
#     language: python
#     name: rosetta-theano
# ---

# %% [markdown]
# # A softmax twice, in Theano

# %% tags=["setup"]
import numpy as np
import theano
import theano.tensor as T

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("softmax_twice")
floatX = theano.config.floatX
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
# An MLP reads each image as one vector of 3 × 32 × 32 = 3072 values.
x_train, x_test = x_train.reshape(len(x_train), -1), x_test.reshape(len(x_test), -1)
sizes = [(3072, hp.hidden), (hp.hidden, hp.hidden), (hp.hidden, 10)]
images, labels = T.matrix("images"), T.ivector("labels")


def train_and_test(softmax_out, seed):
    rng = np.random.default_rng(seed)                               # same start and batch order in both
    params = []
    for n_in, n_out in sizes:                                       # Glorot-uniform, zero biases, as the CNN
        limit = np.sqrt(6 / (n_in + n_out))
        params += [theano.shared(rng.uniform(-limit, limit, (n_in, n_out)).astype(floatX)),
                   theano.shared(np.zeros(n_out, floatX))]
    x = images
    for kernel, bias in zip(params[0:-2:2], params[1:-2:2]):
        x = T.nnet.relu(T.dot(x, kernel) + bias)
    out = T.dot(x, params[-2]) + params[-1]
    out = T.nnet.softmax(out) if softmax_out else out
    # Theano's cross-entropy takes probabilities: the loss is softmax then cross-entropy, on the logits.
    cost = T.nnet.categorical_crossentropy(T.nnet.softmax(out), labels).mean()
    updates = []
    for w, g in zip(params, T.grad(cost, params)):                  # classic momentum, as the CNN tab
        v = theano.shared(np.zeros_like(w.get_value()))
        v_new = hp.momentum * v - hp.learning_rate * g
        updates += [(v, v_new), (w, w + v_new)]
    train = theano.function([images, labels], cost, updates=updates)
    n_batches, total = len(x_train) // hp.batch_size, 0.0
    for _ in range(hp.epochs):
        order = rng.permutation(len(x_train))
        for i in range(n_batches):
            rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
            total += float(train(x_train[rows], y_train[rows]))
    predict = theano.function([images], out.argmax(axis=1))         # a softmax keeps the largest output largest
    return {"accuracy": float((predict(x_test) == y_test).mean()), "loss": total / n_batches}


# %% tags=["variants"]
def softmax_once(seed):
    return train_and_test(False, seed)                              # logits out: the loss applies the softmax


def softmax_twice(seed):
    return train_and_test(True, seed)               # the mistake: probabilities out, softmaxed again in the loss


# %% tags=["measure"]
lesson.compare(hp, {"softmax_once": softmax_once, "softmax_twice": softmax_twice})
