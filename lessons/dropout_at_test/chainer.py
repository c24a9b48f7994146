# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # Dropout at test time, in Chainer

# %% tags=["setup"]
import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("dropout_at_test")
np.random.seed(hp.seed)                                  # Chainer draws initial weights and dropout masks from numpy
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
# An MLP reads each image as one vector of 3 × 32 × 32 = 3072 values.
x_train, x_test = x_train.reshape(len(x_train), -1), x_test.reshape(len(x_test), -1)


class MLP(chainer.Chain):
    def __init__(self):
        super().__init__()
        glorot = chainer.initializers.GlorotUniform()   # as in the CNN benchmark; biases start at 0
        with self.init_scope():
            self.fc1 = L.Linear(3072, hp.hidden, initialW=glorot)
            self.fc2 = L.Linear(hp.hidden, hp.hidden, initialW=glorot)
            self.fc3 = L.Linear(hp.hidden, 10, initialW=glorot)

    def forward(self, x):
        # F.dropout reads chainer.config.train, which is True unless a using_config block says otherwise.
        h = F.dropout(F.relu(self.fc1(x)), hp.dropout)
        h = F.dropout(F.relu(self.fc2(h)), hp.dropout)
        return self.fc3(h)


model = MLP()
optimizer = chainer.optimizers.MomentumSGD(lr=hp.learning_rate, momentum=hp.momentum)
optimizer.setup(model)
for _ in range(hp.epochs):
    order = np.random.permutation(len(x_train))
    for i in range(len(x_train) // hp.batch_size):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        loss = F.softmax_cross_entropy(model(x_train[rows]), y_train[rows])
        model.cleargrads()
        loss.backward()
        optimizer.update()


# %% tags=["variants"]
def accuracy():
    with chainer.no_backprop_mode():                     # no graph; says nothing about dropout
        return {"accuracy": float((model(x_test).array.argmax(axis=1) == y_test).mean())}


def dropout_off():
    with chainer.using_config("train", False):           # inference mode: F.dropout passes its input through
        return accuracy()


def dropout_on(seed):
    np.random.seed(seed)                                 # this round's dropout masks
    return accuracy()                                    # the mistake: no using_config("train", False)


# %% tags=["measure"]
lesson.compare(hp, {"dropout_off": dropout_off, "dropout_on": dropout_on})
