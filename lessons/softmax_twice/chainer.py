# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # Softmax twice, in Chainer

# %% tags=["setup"]
import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("softmax_twice")
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
# An MLP reads each image as one vector of 3 × 32 × 32 = 3072 values.
x_train, x_test = x_train.reshape(len(x_train), -1), x_test.reshape(len(x_test), -1)
loss_fn = F.softmax_cross_entropy                        # softmax inside: it expects logits


def mlp(*last):
    glorot = chainer.initializers.GlorotUniform()       # as in the CNN benchmark; biases start at 0
    return chainer.Sequential(L.Linear(3072, hp.hidden, initialW=glorot), F.relu,
                              L.Linear(hp.hidden, hp.hidden, initialW=glorot), F.relu,
                              L.Linear(hp.hidden, 10, initialW=glorot), *last)


def train_and_test(model):
    optimizer = chainer.optimizers.MomentumSGD(lr=hp.learning_rate, momentum=hp.momentum)
    optimizer.setup(model)
    n_batches = len(x_train) // hp.batch_size
    for _ in range(hp.epochs):
        order, total = np.random.permutation(len(x_train)), 0.0
        for i in range(n_batches):
            rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
            loss = loss_fn(model(x_train[rows]), y_train[rows])
            model.cleargrads()
            loss.backward()
            optimizer.update()
            total += float(loss.array)
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        predictions = model(x_test).array.argmax(axis=1)   # a softmax keeps the largest output largest
    return {"accuracy": float((predictions == y_test).mean()), "loss": total / n_batches}


# %% tags=["variants"]
def softmax_once(seed):
    np.random.seed(seed)                                 # Chainer draws weights from numpy: same start, same order
    return train_and_test(mlp())                         # logits out: the loss applies the softmax


def softmax_twice(seed):
    np.random.seed(seed)
    return train_and_test(mlp(F.softmax))                # the mistake: probabilities out, softmaxed again in the loss


# %% tags=["measure"]
lesson.compare(hp, {"softmax_once": softmax_once, "softmax_twice": softmax_twice})
