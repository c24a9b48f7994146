# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # Softmax twice, in PaddlePaddle

# %% tags=["setup"]
import os

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import paddle
import paddle.nn as nn

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("softmax_twice")
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
# An MLP reads each image as one vector of 3 × 32 × 32 = 3072 values.
x_train, x_test = paddle.to_tensor(x_train).flatten(1), paddle.to_tensor(x_test).flatten(1)
y_train, y_test = paddle.to_tensor(y_train, dtype="int64"), paddle.to_tensor(y_test, dtype="int64")
loss_fn = nn.CrossEntropyLoss()                  # log-softmax inside: it expects logits (use_softmax=True)


def mlp(*last):
    glorot = {"weight_attr": nn.initializer.XavierUniform(), "bias_attr": nn.initializer.Constant(0.0)}
    return nn.Sequential(nn.Linear(3072, hp.hidden, **glorot), nn.ReLU(),   # Glorot-uniform, zero biases
                         nn.Linear(hp.hidden, hp.hidden, **glorot), nn.ReLU(),
                         nn.Linear(hp.hidden, 10, **glorot), *last)


def train_and_test(model):
    optimizer = paddle.optimizer.Momentum(learning_rate=hp.learning_rate, momentum=hp.momentum,
                                          parameters=model.parameters())
    n_batches = len(x_train) // hp.batch_size
    for _ in range(hp.epochs):
        order, total = paddle.randperm(len(x_train)), 0.0
        for i in range(n_batches):
            rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
            loss = loss_fn(model(x_train[rows]), y_train[rows])
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
            total += loss.item()
    with paddle.no_grad():                       # a softmax keeps the largest output largest: same argmax
        accuracy = (model(x_test).argmax(1) == y_test).astype("float32").mean().item()
    return {"accuracy": accuracy, "loss": total / n_batches}


# %% tags=["variants"]
def softmax_once(seed):
    paddle.seed(seed)                            # same starting weights and batch order in both variants
    return train_and_test(mlp())                 # logits out: the loss applies the softmax


def softmax_twice(seed):
    paddle.seed(seed)
    return train_and_test(mlp(nn.Softmax(axis=1)))   # the mistake: probabilities out, softmaxed again in the loss


# %% tags=["measure"]
lesson.compare(hp, {"softmax_once": softmax_once, "softmax_twice": softmax_twice})
