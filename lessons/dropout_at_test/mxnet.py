# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # Dropout at test time, in MXNet Gluon

# %% tags=["setup"]
import mxnet as mx
import numpy as np
from mxnet import autograd, gluon
from mxnet.gluon import nn

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("dropout_at_test")
mx.random.seed(hp.seed)
rng = np.random.default_rng(hp.seed)
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
# An MLP reads each image as one vector of 3 × 32 × 32 = 3072 values (Dense would flatten it too).
x_train, x_test = mx.nd.array(x_train.reshape(len(x_train), -1)), mx.nd.array(x_test.reshape(len(x_test), -1))
y_train, y_test = mx.nd.array(y_train), mx.nd.array(y_test)

model = nn.HybridSequential()
model.add(nn.Dense(hp.hidden, activation="relu"), nn.Dropout(hp.dropout),
          nn.Dense(hp.hidden, activation="relu"), nn.Dropout(hp.dropout),
          nn.Dense(10))
# Glorot-uniform, zero biases, as in the CNN benchmark.
model.initialize(mx.init.Xavier(rnd_type="uniform", factor_type="avg", magnitude=3))
model.hybridize()
trainer = gluon.Trainer(model.collect_params(), "sgd", {"learning_rate": hp.learning_rate, "momentum": hp.momentum})
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
for _ in range(hp.epochs):
    order = mx.nd.array(rng.permutation(len(x_train)))
    for i in range(len(x_train) // hp.batch_size):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        with autograd.record():                          # record() also turns dropout on
            loss = loss_fn(model(x_train.take(rows)), y_train.take(rows))
        loss.backward()
        trainer.step(hp.batch_size)


# %% tags=["variants"]
def accuracy():
    return {"accuracy": float((model(x_test).argmax(axis=1) == y_test).mean().asscalar())}


def dropout_off():
    return accuracy()                                    # outside autograd.record(): inference mode


def dropout_on(seed):
    mx.random.seed(seed)                                 # this round's dropout masks
    with autograd.record():                              # the mistake: evaluating inside the training block;
        return accuracy()                                # record() means train_mode=True, so dropout is on


# %% tags=["measure"]
lesson.compare(hp, {"dropout_off": dropout_off, "dropout_on": dropout_on})
