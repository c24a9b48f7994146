# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # Shuffle the samples, not just the batches, in PyTorch

# %% tags=["setup"]
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("shuffle_batches")
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
x_train, x_test = torch.from_numpy(x_train).flatten(1), torch.from_numpy(x_test).flatten(1)
y_train, y_test = torch.from_numpy(y_train).long(), torch.from_numpy(y_test).long()
n_batches = len(x_train) // hp.batch_size


def mlp(seed):
    torch.manual_seed(seed)                              # the round's seed: the same start for both variants
    model = nn.Sequential(nn.Linear(3072, hp.hidden), nn.ReLU(), nn.Linear(hp.hidden, hp.hidden), nn.ReLU(),
                          nn.Linear(hp.hidden, 10))
    for layer in model[::2]:                             # Glorot-uniform, zero biases, as in the CNN benchmark
        nn.init.xavier_uniform_(layer.weight)
        nn.init.zeros_(layer.bias)
    return model


def train_and_test(seed, epoch_batches):
    """Train on the batches epoch_batches(rng) gives each epoch (lists of sample indices); test accuracy."""
    model, rng = mlp(seed), np.random.default_rng(seed)
    optimizer = torch.optim.SGD(model.parameters(), lr=hp.learning_rate, momentum=hp.momentum)
    for _ in range(hp.epochs):
        for rows in epoch_batches(rng):
            optimizer.zero_grad()
            F.cross_entropy(model(x_train[rows]), y_train[rows]).backward()
            optimizer.step()
    with torch.no_grad():
        return {"accuracy": (model(x_test).argmax(1) == y_test).float().mean().item()}


# %% tags=["variants"]
def new_batches(rng):                                    # a new permutation of the samples every epoch
    order = torch.from_numpy(rng.permutation(len(x_train)))
    return [order[i * hp.batch_size:(i + 1) * hp.batch_size] for i in range(n_batches)]


fixed = [torch.arange(i * hp.batch_size, (i + 1) * hp.batch_size) for i in range(n_batches)]   # cut once


def same_batches_new_order(rng):                         # the same batches, only their order shuffled
    return [fixed[i] for i in rng.permutation(n_batches)]


def shuffle_samples(seed):
    return train_and_test(seed, new_batches)


def shuffle_batches(seed):
    return train_and_test(seed, same_batches_new_order)


# %% tags=["measure"]
lesson.compare(hp, {"shuffle_samples": shuffle_samples, "shuffle_batches": shuffle_batches})
