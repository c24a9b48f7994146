# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # Native layouts, in PyTorch

# %% tags=["setup"]
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("native_layouts")
torch.manual_seed(hp.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.backends.cudnn.benchmark = True                    # on a GPU: let cuDNN pick its fastest kernels
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = torch.from_numpy(x_train).to(device), torch.from_numpy(y_train).long().to(device)


class VGGish(nn.Module):
    """The CNN benchmark's network (dropout left out: it does not change the layout's cost)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 50, 3, padding=1)
        self.conv2 = nn.Conv2d(50, 50, 3, padding=1)
        self.conv3 = nn.Conv2d(50, 100, 3, padding=1)
        self.conv4 = nn.Conv2d(100, 100, 3, padding=1)
        self.fc1 = nn.Linear(100 * 8 * 8, 512)
        self.fc2 = nn.Linear(512, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv2(F.relu(self.conv1(x))), 2))
        x = F.relu(F.max_pool2d(self.conv4(F.relu(self.conv3(x))), 2))
        return self.fc2(F.relu(self.fc1(torch.flatten(x, 1))))


def trainer(model, images):
    optimizer = torch.optim.SGD(model.parameters(), lr=hp.learning_rate, momentum=hp.momentum)

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(images[rows]), y_train[rows])
            loss.backward()
            optimizer.step()
        loss.item()                                      # waits for the GPU, if there is one
    return train


# %% tags=["variants"]
# PyTorch's layout is a memory format: the shape stays (N, C, H, W) either way, only the strides change.
first = VGGish().to(device)                              # the default: channels first in memory (NCHW)
last = copy.deepcopy(first).to(memory_format=torch.channels_last)   # the same weights, stored NHWC
x_first = x_train
x_last = x_train.contiguous(memory_format=torch.channels_last)      # and so are the images
print("strides:", x_first.stride(), "(channels first),", x_last.stride(), "(channels last)")

# %% tags=["measure"]
lesson.compare(hp, {"channels_first": trainer(first, x_first), "channels_last": trainer(last, x_last)})
