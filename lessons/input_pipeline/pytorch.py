# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # Input pipeline or slices of arrays in memory, in PyTorch

# %% tags=["setup"]
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("input_pipeline")
torch.manual_seed(hp.seed)
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = torch.from_numpy(x_train), torch.from_numpy(y_train).long()   # the whole subset in memory
n_batches = len(x_train) // hp.batch_size

# An MLP 3072-512-10: a step costs a few milliseconds, so the cost of feeding it shows.
model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, hp.hidden), nn.ReLU(), nn.Linear(hp.hidden, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=hp.learning_rate, momentum=hp.momentum)


def train_step(x, y):
    optimizer.zero_grad()
    F.cross_entropy(model(x), y).backward()
    optimizer.step()


# %% tags=["variants"]
def slicing():
    order = torch.randperm(len(x_train))                 # a new order each epoch
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        train_step(x_train[rows], y_train[rows])         # one gather per batch


def loader(workers):
    # The DataLoader indexes the dataset one sample at a time and collates the batch; with workers,
    # processes (forked once: persistent_workers) do that in the background while the model trains.
    batches = DataLoader(TensorDataset(x_train, y_train), batch_size=hp.batch_size, shuffle=True,
                         drop_last=True, num_workers=workers, persistent_workers=workers > 0)

    def epoch():
        for x, y in batches:
            train_step(x, y)
    return epoch


# %% tags=["measure"]
lesson.compare(hp, {"slicing": slicing, "pipeline": loader(hp.workers), "pipeline_in_process": loader(0)})
