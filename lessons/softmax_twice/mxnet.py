# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # Softmax twice, in MXNet Gluon

# %% tags=["setup"]
import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("softmax_twice")
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
# An MLP reads each image as one vector of 3 × 32 × 32 = 3072 values (Dense would flatten it too).
x_train, x_test = mx.nd.array(x_train.reshape(len(x_train), -1)), mx.nd.array(x_test.reshape(len(x_test), -1))
y_train, y_test = mx.nd.array(y_train), mx.nd.array(y_test)
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()           # from_logits=False, the default: log-softmax inside


def mlp(*last):
    model = nn.HybridSequential()
    model.add(nn.Dense(hp.hidden, activation="relu"), nn.Dense(hp.hidden, activation="relu"), nn.Dense(10), *last)
    # Glorot-uniform, zero biases, as in the CNN benchmark.
    model.initialize(mx.init.Xavier(rnd_type="uniform", factor_type="avg", magnitude=3))
    model.hybridize()
    return model


def train_and_test(model):
    trainer = gluon.Trainer(model.collect_params(), "sgd", {"learning_rate": hp.learning_rate, "momentum": hp.momentum})
    n_batches = len(x_train) // hp.batch_size
    for _ in range(hp.epochs):
        order, total = mx.nd.random.shuffle(mx.nd.arange(len(x_train))), 0.0
        for i in range(n_batches):
            rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
            with autograd.record():
                loss = loss_fn(model(x_train.take(rows)), y_train.take(rows))
            loss.backward()
            trainer.step(hp.batch_size)
            total += loss.mean().asscalar()
    predictions = model(x_test).argmax(axis=1)           # a softmax keeps the largest output largest
    return {"accuracy": float((predictions == y_test).mean().asscalar()), "loss": total / n_batches}


# %% tags=["variants"]
def softmax_once(seed):
    mx.random.seed(seed)                                 # same starting weights and batch order in both variants
    return train_and_test(mlp())                         # logits out: the loss applies the softmax


def softmax_twice(seed):
    mx.random.seed(seed)
    return train_and_test(mlp(nn.HybridLambda("softmax")))   # the mistake: probabilities out, softmaxed again


# %% tags=["measure"]
lesson.compare(hp, {"softmax_once": softmax_once, "softmax_twice": softmax_twice})
