# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # ReLU after max-pooling, in PaddlePaddle

# %% tags=["setup"]
import os

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("relu_after_pool")
paddle.seed(hp.seed)
x_train, y_train, x_test, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = paddle.to_tensor(x_train), paddle.to_tensor(y_train, dtype="int64")
x_test = paddle.to_tensor(x_test)


class VGGish(nn.Layer):
    """The CNN benchmark's network (dropout left out: it does not change the order's cost)."""

    def __init__(self, block):
        super().__init__()
        self.block = block
        self.conv1 = nn.Conv2D(3, 50, 3, padding=1)
        self.conv2 = nn.Conv2D(50, 50, 3, padding=1)
        self.conv3 = nn.Conv2D(50, 100, 3, padding=1)
        self.conv4 = nn.Conv2D(100, 100, 3, padding=1)
        self.fc1 = nn.Linear(100 * 8 * 8, 512)
        self.fc2 = nn.Linear(512, 10)

    def forward(self, x):
        x = self.block(self.conv2(F.relu(self.conv1(x))))
        x = self.block(self.conv4(F.relu(self.conv3(x))))
        return self.fc2(F.relu(self.fc1(paddle.flatten(x, 1))))


# %% tags=["variants"]
def relu_then_pool(x):
    return F.max_pool2d(F.relu(x), 2)


def pool_then_relu(x):                       # a quarter of the values reach the ReLU
    return F.relu(F.max_pool2d(x, 2))


first = VGGish(relu_then_pool)
second = VGGish(pool_then_relu)
second.set_state_dict(first.state_dict())    # the same weights in both
with paddle.no_grad():
    max_difference = (first(x_test) - second(x_test)).abs().max().item()
print(f"largest difference between the two orders' logits: {max_difference:.2e}")


def trainer(model):
    optimizer = paddle.optimizer.Momentum(learning_rate=hp.learning_rate, momentum=hp.momentum,
                                          parameters=model.parameters())

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            loss = F.cross_entropy(model(x_train[rows]), y_train[rows])
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
        loss.item()                          # waits for the GPU, if there is one
    return train


# %% tags=["measure"]
lesson.compare(hp, {"relu_then_pool": trainer(first), "pool_then_relu": trainer(second)},
               facts={"pool_then_relu": {"max_difference": max_difference}})
