# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # Softmax twice, in PyTorch

# %% tags=["setup"]
import torch
import torch.nn as nn

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("softmax_twice")
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
# An MLP reads each image as one vector of 3 × 32 × 32 = 3072 values.
x_train, x_test = torch.from_numpy(x_train).flatten(1), torch.from_numpy(x_test).flatten(1)
y_train, y_test = torch.from_numpy(y_train).long(), torch.from_numpy(y_test).long()
loss_fn = nn.CrossEntropyLoss()                  # log-softmax inside: it expects logits


def mlp(*last):
    model = nn.Sequential(nn.Linear(3072, hp.hidden), nn.ReLU(), nn.Linear(hp.hidden, hp.hidden), nn.ReLU(),
                          nn.Linear(hp.hidden, 10), *last)
    for layer in model[::2]:                     # Glorot-uniform, zero biases, as in the CNN benchmark
        nn.init.xavier_uniform_(layer.weight)
        nn.init.zeros_(layer.bias)
    return model


def train_and_test(model):
    optimizer = torch.optim.SGD(model.parameters(), lr=hp.learning_rate, momentum=hp.momentum)
    n_batches = len(x_train) // hp.batch_size
    for _ in range(hp.epochs):
        order, total = torch.randperm(len(x_train)), 0.0
        for i in range(n_batches):
            rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[rows]), y_train[rows])
            loss.backward()
            optimizer.step()
            total += loss.item()
    with torch.no_grad():                        # a softmax keeps the largest output largest: same argmax
        accuracy = (model(x_test).argmax(1) == y_test).float().mean().item()
    return {"accuracy": accuracy, "loss": total / n_batches}


# %% tags=["variants"]
def softmax_once(seed):
    torch.manual_seed(seed)                      # same starting weights and batch order in both variants
    return train_and_test(mlp())                 # logits out: the loss applies the softmax


def softmax_twice(seed):
    torch.manual_seed(seed)
    return train_and_test(mlp(nn.Softmax(dim=1)))   # the mistake: probabilities out, softmaxed again in the loss


# %% tags=["measure"]
lesson.compare(hp, {"softmax_once": softmax_once, "softmax_twice": softmax_twice})
