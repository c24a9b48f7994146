# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # Momentum: classic, PyTorch's, and unit gain, in Chainer

# %% tags=["setup"]
import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("momentum")
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")   # Linear flattens (N, 3, 32, 32) itself


class MLP(chainer.Chain):
    def __init__(self):
        super().__init__()
        glorot = chainer.initializers.GlorotUniform()
        with self.init_scope():                          # biases start at 0
            self.fc1 = L.Linear(3072, hp.hidden_units, initialW=glorot)
            self.fc2 = L.Linear(hp.hidden_units, 10, initialW=glorot)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def train(seed, optimizer_for):
    """The same batches in order; the learning rate drops by lr_drop after half of the epochs."""
    np.random.seed(seed)                                 # the same seed, the same initial weights
    model = MLP()
    step = optimizer_for(model)
    for epoch in range(hp.epochs):
        lr = hp.learning_rate * (hp.lr_drop if epoch >= hp.epochs // 2 else 1)
        for start in range(0, len(x_train) - hp.batch_size + 1, hp.batch_size):
            loss = F.softmax_cross_entropy(model(x_train[start:start + hp.batch_size]),
                                           y_train[start:start + hp.batch_size])
            model.cleargrads()
            loss.backward()
            step(lr)
    return model


def evaluate(model):
    with chainer.no_backprop_mode():
        return {"loss": float(F.softmax_cross_entropy(model(x_train), y_train).array),   # whole training set
                "accuracy": float((model(x_test).array.argmax(axis=1) == y_test).mean())}


# %% tags=["variants"]
def framework_sgd(model):
    optimizer = chainer.optimizers.MomentumSGD(lr=hp.learning_rate, momentum=hp.momentum)
    optimizer.setup(model)

    def step(lr):
        optimizer.lr = lr                                # hyper-parameters are attributes of the optimizer
        optimizer.update()                               # Chainer's momentum is the classic one
    return step


def classic_sgd(model):
    weights = list(model.params())
    velocities = [np.zeros_like(w.array) for w in weights]

    def step(lr):
        for w, v in zip(weights, velocities):
            v *= hp.momentum                             # v = m·v − lr·g: the velocity keeps the old lr's steps
            v -= lr * w.grad
            w.array += v
    return step


def unit_gain_sgd(model):
    weights = list(model.params())
    velocities = [np.zeros_like(w.array) for w in weights]

    def step(lr):
        for w, v in zip(weights, velocities):
            v *= hp.momentum                             # v = m·v + (1 − m)·g
            v += (1 - hp.momentum) * w.grad
            w.array -= lr * v
    return step


def framework(seed):
    return evaluate(train(seed, framework_sgd))


def classic(seed):
    return evaluate(train(seed, classic_sgd))


def unit_gain(seed):
    return evaluate(train(seed, unit_gain_sgd))


# Once, outside the timed calls: how far each run's weights end from classic momentum's (same start, same batches).
final = {name: [w.array for w in train(hp.seed, optimizer_for).params()]
         for name, optimizer_for in (("framework", framework_sgd), ("classic", classic_sgd),
                                     ("unit_gain", unit_gain_sgd))}
differences = {name: max(float(abs(w - c).max()) for w, c in zip(final[name], final["classic"]))
               for name in ("framework", "unit_gain")}
print("largest weight difference from classic momentum:",
      ", ".join(f"{name} {value:.2e}" for name, value in differences.items()))

# %% tags=["measure"]
lesson.compare(hp, {"framework": framework, "classic": classic, "unit_gain": unit_gain},
               facts={name: {"max_weight_difference": value} for name, value in differences.items()})
