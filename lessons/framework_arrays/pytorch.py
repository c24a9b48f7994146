# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # Keep the data in the framework's arrays, in PyTorch

# %% tags=["setup"]
import torch
import torch.nn as nn
import torch.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("framework_arrays")
torch.manual_seed(hp.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x_numpy, y_numpy, _, _ = cifar10.load(hp, layout="NCHW")
n_batches = len(x_numpy) // hp.batch_size
model = nn.Sequential(nn.Flatten(), nn.Linear(3072, hp.hidden), nn.ReLU(), nn.Linear(hp.hidden, 10)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=hp.learning_rate, momentum=hp.momentum)


def train_step(x, y):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


# %% tags=["variants"]
x_train = torch.from_numpy(x_numpy).to(device)          # converted once (on the GPU, copied there once)
y_train = torch.from_numpy(y_numpy).long().to(device)


def framework_arrays():
    for i in range(n_batches):
        rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
        loss = train_step(x_train[rows], y_train[rows])
    loss.item()                                          # waits for the GPU, if there is one


def converted_per_step():
    for i in range(n_batches):
        rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
        # from_numpy shares the NumPy memory (no copy on a CPU); .long() and .to(device) copy.
        loss = train_step(torch.from_numpy(x_numpy[rows]).to(device), torch.from_numpy(y_numpy[rows]).long().to(device))
    loss.item()


# %% tags=["measure"]
lesson.compare(hp, {"framework_arrays": framework_arrays, "converted_per_step": converted_per_step})
