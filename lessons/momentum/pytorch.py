# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # Momentum: classic, PyTorch's, and unit gain, in PyTorch

# %% tags=["setup"]
import torch
import torch.nn as nn
import torch.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("momentum")
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
x_train, x_test = torch.from_numpy(x_train).flatten(1), torch.from_numpy(x_test).flatten(1)
y_train, y_test = torch.from_numpy(y_train).long(), torch.from_numpy(y_test).long()


def mlp(seed):
    torch.manual_seed(seed)                              # the same seed, the same initial weights
    model = nn.Sequential(nn.Linear(3072, hp.hidden_units), nn.ReLU(), nn.Linear(hp.hidden_units, 10))
    for layer in (model[0], model[2]):
        nn.init.xavier_uniform_(layer.weight)
        nn.init.zeros_(layer.bias)
    return model


def train(seed, optimizer_for):
    """The same batches in order; the learning rate drops by lr_drop after half of the epochs."""
    model = mlp(seed)
    step = optimizer_for(list(model.parameters()))
    for epoch in range(hp.epochs):
        lr = hp.learning_rate * (hp.lr_drop if epoch >= hp.epochs // 2 else 1)
        for start in range(0, len(x_train) - hp.batch_size + 1, hp.batch_size):
            model.zero_grad()
            F.cross_entropy(model(x_train[start:start + hp.batch_size]),
                            y_train[start:start + hp.batch_size]).backward()
            step(lr)
    return model


@torch.no_grad()
def evaluate(model):
    return {"loss": F.cross_entropy(model(x_train), y_train).item(),          # on the whole training set
            "accuracy": (model(x_test).argmax(1) == y_test).float().mean().item()}


# %% tags=["variants"]
def framework_sgd(weights):
    optimizer = torch.optim.SGD(weights, lr=hp.learning_rate, momentum=hp.momentum)

    def step(lr):
        for group in optimizer.param_groups:            # what a learning-rate scheduler does
            group["lr"] = lr
        optimizer.step()                                 # v = m·v + g; w -= lr·v: lr scales the whole velocity
    return step


def classic_sgd(weights):
    velocities = [torch.zeros_like(w) for w in weights]

    @torch.no_grad()
    def step(lr):
        for w, v in zip(weights, velocities):
            v.mul_(hp.momentum).sub_(lr * w.grad)        # v = m·v − lr·g: the velocity keeps the old lr's steps
            w.add_(v)
    return step


def unit_gain_sgd(weights):
    # torch.optim.SGD(dampening=momentum) is nearly this, but its first step takes the undamped gradient.
    velocities = [torch.zeros_like(w) for w in weights]

    @torch.no_grad()
    def step(lr):
        for w, v in zip(weights, velocities):
            v.mul_(hp.momentum).add_(w.grad, alpha=1 - hp.momentum)   # v = m·v + (1 − m)·g
            w.sub_(lr * v)
    return step


def framework(seed):
    return evaluate(train(seed, framework_sgd))


def classic(seed):
    return evaluate(train(seed, classic_sgd))


def unit_gain(seed):
    return evaluate(train(seed, unit_gain_sgd))


# Once, outside the timed calls: how far each run's weights end from classic momentum's (same start, same batches).
final = {name: list(train(hp.seed, optimizer_for).parameters())
         for name, optimizer_for in (("framework", framework_sgd), ("classic", classic_sgd),
                                     ("unit_gain", unit_gain_sgd))}
differences = {name: max((w - c).abs().max().item() for w, c in zip(final[name], final["classic"]))
               for name in ("framework", "unit_gain")}
print("largest weight difference from classic momentum:",
      ", ".join(f"{name} {value:.2e}" for name, value in differences.items()))

# %% tags=["measure"]
lesson.compare(hp, {"framework": framework, "classic": classic, "unit_gain": unit_gain},
               facts={name: {"max_weight_difference": value} for name, value in differences.items()})
