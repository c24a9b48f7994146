# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # Dropout at test time, in PaddlePaddle

# %% tags=["setup"]
import os

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("dropout_at_test")
paddle.seed(hp.seed)
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
# An MLP reads each image as one vector of 3 × 32 × 32 = 3072 values.
x_train, x_test = paddle.to_tensor(x_train).flatten(1), paddle.to_tensor(x_test).flatten(1)
y_train, y_test = paddle.to_tensor(y_train, dtype="int64"), paddle.to_tensor(y_test, dtype="int64")

glorot = {"weight_attr": nn.initializer.XavierUniform(), "bias_attr": nn.initializer.Constant(0.0)}
model = nn.Sequential(                           # Glorot-uniform, zero biases, as in the CNN benchmark
    nn.Linear(3072, hp.hidden, **glorot), nn.ReLU(), nn.Dropout(hp.dropout),
    nn.Linear(hp.hidden, hp.hidden, **glorot), nn.ReLU(), nn.Dropout(hp.dropout),
    nn.Linear(hp.hidden, 10, **glorot),
)
optimizer = paddle.optimizer.Momentum(learning_rate=hp.learning_rate, momentum=hp.momentum,
                                      parameters=model.parameters())
model.train()                                    # dropout on while training
for _ in range(hp.epochs):
    order = paddle.randperm(len(x_train))
    for i in range(len(x_train) // hp.batch_size):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        F.cross_entropy(model(x_train[rows]), y_train[rows]).backward()
        optimizer.step()
        optimizer.clear_grad()
# The model is still in training mode: the loop above left it there.


# %% tags=["variants"]
def accuracy():
    with paddle.no_grad():                       # no_grad() stops the recording, NOT dropout
        return (model(x_test).argmax(1) == y_test).astype("float32").mean().item()


def dropout_off():
    model.eval()                                 # inference mode: every nn.Dropout passes its input through
    return {"accuracy": accuracy()}


def dropout_on(seed):
    paddle.seed(seed)                            # this round's dropout masks
    model.train()                                # the mistake: no model.eval() after training
    return {"accuracy": accuracy()}


# %% tags=["measure"]
lesson.compare(hp, {"dropout_off": dropout_off, "dropout_on": dropout_on})
