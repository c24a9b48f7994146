# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # The CNN's training step, as written and tuned, in PaddlePaddle
# Paddle's speed-up for training is `paddle.jit.to_static`, which turns the dynamic graph into a static
# program (its guide's advice for speed). Its oneDNN switch (`FLAGS_use_mkldnn`) changes no kernel of the
# dynamic graph in Paddle 3.3 (its debug log names Paddle's own CPU kernels either way), so it is not a variant.

# %% tags=["setup"]
import copy
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("tuned_cnn")
paddle.seed(hp.seed)
rng = np.random.default_rng(hp.seed)
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = paddle.to_tensor(x_train), paddle.to_tensor(y_train, dtype="int64")


def glorot():
    return {"weight_attr": nn.initializer.XavierUniform(), "bias_attr": nn.initializer.Constant(0.0)}


class VGGish(nn.Layer):
    """The CNN benchmark's network, copied from its snippet."""

    def __init__(self, n_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2D(3, 50, kernel_size=3, padding=1, **glorot())
        self.conv2 = nn.Conv2D(50, 50, kernel_size=3, padding=1, **glorot())
        self.conv3 = nn.Conv2D(50, 100, kernel_size=3, padding=1, **glorot())
        self.conv4 = nn.Conv2D(100, 100, kernel_size=3, padding=1, **glorot())
        self.fc1 = nn.Linear(100 * 8 * 8, 512, **glorot())
        self.fc2 = nn.Linear(512, n_classes, **glorot())

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(F.max_pool2d(self.conv2(x), 2))
        x = F.dropout(x, hp.dropout_conv, training=self.training)
        x = F.relu(self.conv3(x))
        x = F.relu(F.max_pool2d(self.conv4(x), 2))
        x = F.dropout(x, hp.dropout_conv, training=self.training)
        x = F.relu(self.fc1(paddle.flatten(x, 1)))
        x = F.dropout(x, hp.dropout_dense, training=self.training)
        return self.fc2(x)


def trainer(model):
    """The snippet's training loop, for `batches` steps per call."""
    optimizer = paddle.optimizer.Momentum(learning_rate=hp.learning_rate, momentum=hp.momentum,
                                          parameters=model.parameters())
    loss_fn = nn.CrossEntropyLoss()
    model.train()

    def train():
        order = paddle.to_tensor(rng.permutation(len(x_train)))
        for i in range(hp.batches):
            rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
            loss = loss_fn(model(x_train[rows]), y_train[rows])
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
        loss.item()                                      # waits for the GPU, if there is one
    return train


first = VGGish()                                         # the same starting weights in every variant


# %% tags=["variants"]
variants = {"as_written": trainer(first)}

# paddle.jit.to_static: the model's forward pass traced into a static program (full_graph=True: the whole
# of it, from its source code), which Paddle's executor runs and differentiates. The tracing happens in the
# first call, which the timed rounds leave out.
variants["compiled"] = trainer(paddle.jit.to_static(copy.deepcopy(first), full_graph=True))

# %% tags=["measure"]
first_call = {}                                          # the first call, tracing included, timed once
for name, train in variants.items():
    started = time.perf_counter()
    train()
    first_call[name] = {"first_call_seconds": time.perf_counter() - started}
lesson.compare(hp, variants, facts=first_call)
