# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # No gradient to the input, in PaddlePaddle

# %% tags=["setup"]
import os

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("input_gradient")
paddle.seed(hp.seed)
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = paddle.to_tensor(x_train), paddle.to_tensor(y_train, dtype="int64")   # on the GPU, if any
model = nn.Sequential(                                   # the CNN benchmark's network, without dropout
    nn.Conv2D(3, 50, 3, padding=1), nn.ReLU(), nn.Conv2D(50, 50, 3, padding=1), nn.MaxPool2D(2), nn.ReLU(),
    nn.Conv2D(50, 100, 3, padding=1), nn.ReLU(), nn.Conv2D(100, 100, 3, padding=1), nn.MaxPool2D(2), nn.ReLU(),
    nn.Flatten(), nn.Linear(100 * 8 * 8, 512), nn.ReLU(), nn.Linear(512, 10))
optimizer = paddle.optimizer.Momentum(learning_rate=hp.learning_rate, momentum=hp.momentum,
                                      parameters=model.parameters())


def trainer(images_for):
    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            images = images_for(x_train[rows])
            loss = F.cross_entropy(model(images), y_train[rows])
            loss.backward()                              # fills images.grad too, where it was asked for
            optimizer.step()
            optimizer.clear_grad()
        loss.item()                                      # waits for the GPU, if there is one
    return train


# %% tags=["variants"]
def as_they_are(images):
    return images                                        # stop_gradient=True: autograd stops at the first layer


def asking_for_their_gradient(images):
    images = images.detach()
    images.stop_gradient = False                         # Paddle's requires_grad_(): what a saliency map needs
    return images


# %% tags=["measure"]
lesson.compare(hp, {"no_input_gradient": trainer(as_they_are), "input_gradient": trainer(asking_for_their_gradient)})
