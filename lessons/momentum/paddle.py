# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # Momentum: classic, PyTorch's, and unit gain, in PaddlePaddle
# Paddle's `paddle.optimizer.Momentum` is PyTorch's form: v = m·v + g; w -= lr·v.

# %% tags=["setup"]
import os

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("momentum")
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
x_train, x_test = paddle.to_tensor(x_train).flatten(1), paddle.to_tensor(x_test).flatten(1)
y_train, y_test = paddle.to_tensor(y_train, dtype="int64"), paddle.to_tensor(y_test, dtype="int64")
glorot = {"weight_attr": nn.initializer.XavierUniform(), "bias_attr": nn.initializer.Constant(0.0)}


def mlp(seed):
    paddle.seed(seed)                                    # the same seed, the same initial weights
    return nn.Sequential(nn.Linear(3072, hp.hidden_units, **glorot), nn.ReLU(),
                         nn.Linear(hp.hidden_units, 10, **glorot))


def train(seed, optimizer_for):
    """The same batches in order; the learning rate drops by lr_drop after half of the epochs."""
    model = mlp(seed)
    step = optimizer_for(model.parameters())
    for epoch in range(hp.epochs):
        lr = hp.learning_rate * (hp.lr_drop if epoch >= hp.epochs // 2 else 1)
        for start in range(0, len(x_train) - hp.batch_size + 1, hp.batch_size):
            model.clear_gradients()
            F.cross_entropy(model(x_train[start:start + hp.batch_size]),
                            y_train[start:start + hp.batch_size]).backward()
            step(lr)
    return model


@paddle.no_grad()
def evaluate(model):
    return {"loss": F.cross_entropy(model(x_train), y_train).item(),          # on the whole training set
            "accuracy": (model(x_test).argmax(1) == y_test).astype("float32").mean().item()}


# %% tags=["variants"]
def framework_sgd(weights):
    optimizer = paddle.optimizer.Momentum(learning_rate=hp.learning_rate, momentum=hp.momentum, parameters=weights)

    def step(lr):
        optimizer.set_lr(lr)                             # what a schedule (paddle.optimizer.lr.PiecewiseDecay) does
        optimizer.step()                                 # v = m·v + g; w -= lr·v: lr scales the whole velocity
    return step


def classic_sgd(weights):
    velocities = [paddle.zeros_like(w) for w in weights]

    @paddle.no_grad()
    def step(lr):
        for w, v in zip(weights, velocities):
            v.scale_(hp.momentum).subtract_(lr * w.grad)   # v = m·v − lr·g: the velocity keeps the old lr's steps
            w.add_(v)
    return step


def unit_gain_sgd(weights):
    velocities = [paddle.zeros_like(w) for w in weights]

    @paddle.no_grad()
    def step(lr):
        for w, v in zip(weights, velocities):
            v.scale_(hp.momentum).add_((1 - hp.momentum) * w.grad)   # v = m·v + (1 − m)·g
            w.subtract_(lr * v)
    return step


def framework(seed):
    return evaluate(train(seed, framework_sgd))


def classic(seed):
    return evaluate(train(seed, classic_sgd))


def unit_gain(seed):
    return evaluate(train(seed, unit_gain_sgd))


# Once, outside the timed calls: how far each run's weights end from classic momentum's (same start, same batches).
final = {name: train(hp.seed, optimizer_for).parameters()
         for name, optimizer_for in (("framework", framework_sgd), ("classic", classic_sgd),
                                     ("unit_gain", unit_gain_sgd))}
differences = {name: max((w - c).abs().max().item() for w, c in zip(final[name], final["classic"]))
               for name in ("framework", "unit_gain")}
print("largest weight difference from classic momentum:",
      ", ".join(f"{name} {value:.2e}" for name, value in differences.items()))

# %% tags=["measure"]
lesson.compare(hp, {"framework": framework, "classic": classic, "unit_gain": unit_gain},
               facts={name: {"max_weight_difference": value} for name, value in differences.items()})
