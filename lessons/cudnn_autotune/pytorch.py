# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # cuDNN autotuning for fixed shapes, in PyTorch

# %% tags=["setup"]
import torch
import torch.nn as nn
import torch.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("cudnn_autotune")
torch.manual_seed(hp.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"on {device}" + ("" if device.type == "cuda" else ": no cuDNN, so the flag changes nothing here"))
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


first = VGGish().to(device)


def trainer():
    """Training steps of a copy of the network (the same weights for every variant)."""
    model = VGGish().to(device)
    model.load_state_dict(first.state_dict())
    optimizer = torch.optim.SGD(model.parameters(), lr=hp.learning_rate, momentum=hp.momentum)

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x_train[rows]), y_train[rows])
            loss.backward()
            optimizer.step()
        loss.item()                                      # waits for the GPU's queue
    return train


# %% tags=["variants"]
# The flag is read at every convolution call, so it can change between calls.
train_heuristic, train_autotuned = trainer(), trainer()


def heuristic():
    torch.backends.cudnn.benchmark = False               # cuDNN's heuristic picks each algorithm
    train_heuristic()


def autotuned():
    torch.backends.cudnn.benchmark = True                # the first call per shape times the algorithms
    train_autotuned()                                    # (the warm-up) and keeps the fastest


# %% tags=["measure"]
lesson.compare(hp, {"heuristic": heuristic, "autotuned": autotuned})
