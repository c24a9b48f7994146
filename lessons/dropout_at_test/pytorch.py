# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # Dropout at test time, in PyTorch

# %% tags=["setup"]
import torch
import torch.nn as nn
import torch.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("dropout_at_test")
torch.manual_seed(hp.seed)
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
# An MLP reads each image as one vector of 3 × 32 × 32 = 3072 values.
x_train, x_test = torch.from_numpy(x_train).flatten(1), torch.from_numpy(x_test).flatten(1)
y_train, y_test = torch.from_numpy(y_train).long(), torch.from_numpy(y_test).long()

model = nn.Sequential(
    nn.Linear(3072, hp.hidden), nn.ReLU(), nn.Dropout(hp.dropout),
    nn.Linear(hp.hidden, hp.hidden), nn.ReLU(), nn.Dropout(hp.dropout),
    nn.Linear(hp.hidden, 10),
)
for layer in model[::3]:                         # Glorot-uniform, zero biases, as in the CNN benchmark
    nn.init.xavier_uniform_(layer.weight)
    nn.init.zeros_(layer.bias)
optimizer = torch.optim.SGD(model.parameters(), lr=hp.learning_rate, momentum=hp.momentum)
model.train()                                    # dropout on while training
for _ in range(hp.epochs):
    order = torch.randperm(len(x_train))
    for i in range(len(x_train) // hp.batch_size):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        optimizer.zero_grad()
        F.cross_entropy(model(x_train[rows]), y_train[rows]).backward()
        optimizer.step()
# The model is still in training mode: the loop above left it there.


# %% tags=["variants"]
def accuracy():
    with torch.no_grad():                        # no_grad() stops the recording, NOT dropout
        return (model(x_test).argmax(1) == y_test).float().mean().item()


def dropout_off():
    model.eval()                                 # inference mode: every nn.Dropout passes its input through
    return {"accuracy": accuracy()}


def dropout_on(seed):
    torch.manual_seed(seed)                      # this round's dropout masks
    model.train()                                # the mistake: no model.eval() after training
    return {"accuracy": accuracy()}


# %% tags=["measure"]
lesson.compare(hp, {"dropout_off": dropout_off, "dropout_on": dropout_on})
