# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # Blocking reads in the training loop, in PyTorch

# %% tags=["setup"]
import torch
import torch.nn as nn
import torch.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("blocking_calls")
torch.manual_seed(hp.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = torch.from_numpy(x_train).to(device), torch.from_numpy(y_train).long().to(device)


class VGGish(nn.Module):
    """The CNN benchmark's network."""

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
        x = F.dropout(x, hp.dropout_conv, training=self.training)
        x = F.relu(F.max_pool2d(self.conv4(F.relu(self.conv3(x))), 2))
        x = F.dropout(x, hp.dropout_conv, training=self.training)
        x = F.dropout(F.relu(self.fc1(torch.flatten(x, 1))), hp.dropout_dense, training=self.training)
        return self.fc2(x)


model = VGGish().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=hp.learning_rate, momentum=hp.momentum)


def train_step(i):
    rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x_train[rows]), y_train[rows])
    loss.backward()
    optimizer.step()
    return loss.detach()                                 # a tensor on the device


# %% tags=["variants"]
# On a CPU, PyTorch runs every operator before returning: a read has nothing to wait for, so
# this pair is a control. On a GPU, kernels are queued and .item() waits for them.
def read_every_step():
    running = 0.0
    for i in range(hp.batches):
        running += train_step(i).item()                  # copies the loss to Python: waits on a GPU
    return {"loss": running / hp.batches}


def read_at_end():
    running = torch.zeros((), device=device)
    for i in range(hp.batches):
        running += train_step(i)                         # summed on the device, nothing waits
    return {"loss": running.item() / hp.batches}         # the one read, at the end


# %% tags=["measure"]
lesson.compare(hp, {"read_every_step": read_every_step, "read_at_end": read_at_end})
