# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # Default initialisers against Glorot-uniform, in PaddlePaddle
# Paddle's `nn.Linear` starts from Xavier-uniform (Glorot-uniform) weights and zero biases when nothing is
# asked for, as Keras' Dense does: its two variants draw the same weights for the same seed, a control.

# %% tags=["setup"]
import os

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("initialisers")
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
# The MLP sees each image as one vector of 3072 values; labels as int64 for the loss.
x_train, x_test = paddle.to_tensor(x_train).flatten(1), paddle.to_tensor(x_test).flatten(1)
y_train, y_test = paddle.to_tensor(y_train, dtype="int64"), paddle.to_tensor(y_test, dtype="int64")


def mlp(**initialisers):
    return nn.Sequential(nn.Linear(3072, hp.hidden_units, **initialisers), nn.ReLU(),
                         nn.Linear(hp.hidden_units, hp.hidden_units, **initialisers), nn.ReLU(),
                         nn.Linear(hp.hidden_units, 10, **initialisers))


def train_and_test(model):
    """SGD + momentum on the same batches, in order, every time; then the test accuracy."""
    optimizer = paddle.optimizer.Momentum(learning_rate=hp.learning_rate, momentum=hp.momentum,
                                          parameters=model.parameters())
    for _ in range(hp.epochs):
        for start in range(0, len(x_train) - hp.batch_size + 1, hp.batch_size):
            F.cross_entropy(model(x_train[start:start + hp.batch_size]),
                            y_train[start:start + hp.batch_size]).backward()
            optimizer.step()
            optimizer.clear_grad()
    with paddle.no_grad():
        return {"accuracy": (model(x_test).argmax(1) == y_test).astype("float32").mean().item()}


# %% tags=["variants"]
def default_model():
    # With no weight_attr or bias_attr, a parameter gets Paddle's defaults (ParamAttr): XavierUniform() for the
    # weights, Constant(0.0) for the biases. Paddle's default IS Glorot-uniform: the pair is a control.
    return mlp()


def glorot_model():
    return mlp(weight_attr=nn.initializer.XavierUniform(),      # U(±√(6 / (fan_in + fan_out)))
               bias_attr=nn.initializer.Constant(0.0))


def default(seed):
    paddle.seed(seed)                                    # the round's seed draws the initial weights
    return train_and_test(default_model())


def glorot(seed):
    paddle.seed(seed)
    return train_and_test(glorot_model())


for name, build in (("default", default_model), ("glorot", glorot_model)):
    first = build()[0]
    print(f"{name}: first layer's weights within ±{first.weight.abs().max().item():.3f}, "
          f"biases within ±{first.bias.abs().max().item():.3f}")

# %% tags=["measure"]
lesson.compare(hp, {"default": default, "glorot": glorot})
