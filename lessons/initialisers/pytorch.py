# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # Default initialisers against Glorot-uniform, in PyTorch

# %% tags=["setup"]
import torch
import torch.nn as nn
import torch.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("initialisers")
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
# The MLP sees each image as one vector of 3072 values; labels as int64 for the loss.
x_train, x_test = torch.from_numpy(x_train).flatten(1), torch.from_numpy(x_test).flatten(1)
y_train, y_test = torch.from_numpy(y_train).long(), torch.from_numpy(y_test).long()


def mlp():
    return nn.Sequential(nn.Linear(3072, hp.hidden_units), nn.ReLU(),
                         nn.Linear(hp.hidden_units, hp.hidden_units), nn.ReLU(),
                         nn.Linear(hp.hidden_units, 10))


def train_and_test(model):
    """SGD + momentum on the same batches, in order, every time; then the test accuracy."""
    optimizer = torch.optim.SGD(model.parameters(), lr=hp.learning_rate, momentum=hp.momentum)
    for _ in range(hp.epochs):
        for start in range(0, len(x_train) - hp.batch_size + 1, hp.batch_size):
            optimizer.zero_grad()
            F.cross_entropy(model(x_train[start:start + hp.batch_size]),
                            y_train[start:start + hp.batch_size]).backward()
            optimizer.step()
    with torch.no_grad():
        return {"accuracy": (model(x_test).argmax(1) == y_test).float().mean().item()}


# %% tags=["variants"]
def default_model():
    # nn.Linear.reset_parameters: kaiming_uniform_(a=√5), i.e. U(±1/√fan_in), and the bias U(±1/√fan_in) too.
    return mlp()


def glorot_model():
    model = mlp()
    for layer in model:
        if isinstance(layer, nn.Linear):
            nn.init.xavier_uniform_(layer.weight)        # U(±√(6 / (fan_in + fan_out)))
            nn.init.zeros_(layer.bias)
    return model


def default(seed):
    torch.manual_seed(seed)                              # the round's seed draws the initial weights
    return train_and_test(default_model())


def glorot(seed):
    torch.manual_seed(seed)
    return train_and_test(glorot_model())


for name, build in (("default", default_model), ("glorot", glorot_model)):
    first = build()[0]
    print(f"{name}: first layer's weights within ±{first.weight.abs().max():.3f}, "
          f"biases within ±{first.bias.abs().max():.3f}")

# %% tags=["measure"]
lesson.compare(hp, {"default": default, "glorot": glorot})
