# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # Keep the data in the framework's arrays, in PaddlePaddle

# %% tags=["setup"]
import os

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("framework_arrays")
paddle.seed(hp.seed)
x_numpy, y_numpy, _, _ = cifar10.load(hp, layout="NCHW")
n_batches = len(x_numpy) // hp.batch_size
model = nn.Sequential(nn.Flatten(), nn.Linear(3072, hp.hidden), nn.ReLU(), nn.Linear(hp.hidden, 10))
optimizer = paddle.optimizer.Momentum(learning_rate=hp.learning_rate, momentum=hp.momentum,
                                      parameters=model.parameters())


def train_step(x, y):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.clear_grad()
    return loss


# %% tags=["variants"]
x_train = paddle.to_tensor(x_numpy)                      # converted once (on the GPU, if any, copied there once)
y_train = paddle.to_tensor(y_numpy, dtype="int64")


def framework_arrays():
    for i in range(n_batches):
        rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
        loss = train_step(x_train[rows], y_train[rows])  # a slice of a tensor: a view, no copy
    loss.item()                                          # waits for the GPU, if there is one


def converted_per_step():
    for i in range(n_batches):
        rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
        # paddle.to_tensor copies the NumPy batch into a new tensor (on the device), the labels cast to int64.
        loss = train_step(paddle.to_tensor(x_numpy[rows]), paddle.to_tensor(y_numpy[rows], dtype="int64"))
    loss.item()


# %% tags=["measure"]
lesson.compare(hp, {"framework_arrays": framework_arrays, "converted_per_step": converted_per_step})
