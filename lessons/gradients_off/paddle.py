# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # Gradients off for inference, in PaddlePaddle

# %% tags=["setup"]
import os

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("gradients_off")
paddle.seed(hp.seed)
paddle.set_device("cpu")                         # the lesson measures host memory: CPU, as in every tab
_, _, x_test, _ = cifar10.load(hp, layout="NCHW")
x_test = paddle.to_tensor(x_test)
batches = [x_test[i:i + hp.batch_size] for i in range(0, len(x_test), hp.batch_size)]


class VGGish(nn.Layer):
    """The CNN benchmark's network; its dropout is left out (in inference mode it is the identity)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2D(3, 50, 3, padding=1)
        self.conv2 = nn.Conv2D(50, 50, 3, padding=1)
        self.conv3 = nn.Conv2D(50, 100, 3, padding=1)
        self.conv4 = nn.Conv2D(100, 100, 3, padding=1)
        self.fc1 = nn.Linear(100 * 8 * 8, 512)
        self.fc2 = nn.Linear(512, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv2(F.relu(self.conv1(x))), 2))
        x = F.relu(F.max_pool2d(self.conv4(F.relu(self.conv3(x))), 2))
        return self.fc2(F.relu(self.fc1(paddle.flatten(x, 1))))


model = VGGish()
model.eval()
# Paddle's parameters need gradients (stop_gradient=False) by default; its other tensors do not.
print("parameters need gradients:", all(not p.stop_gradient for p in model.parameters()))


# %% tags=["variants"]
def predict():
    # All the test logits, kept until the last batch is done, as code that goes on to an accuracy or a
    # test loss keeps them. While recording, each batch's logits hold on to that batch's graph.
    logits = paddle.concat([model(batch) for batch in batches])
    del logits                                   # (what comes next is not part of the lesson)


def gradients_off():
    with paddle.no_grad():                       # nothing recorded: each activation is freed once used
        predict()


def gradients_on():
    predict()                                    # the plain call records: the parameters need gradients


# %% tags=["measure"]
lesson.compare(hp, {"gradients_off": gradients_off, "gradients_on": gradients_on}, memory=True)
