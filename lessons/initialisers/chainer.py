# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # Default initialisers against Glorot-uniform, in Chainer

# %% tags=["setup"]
import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("initialisers")
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")   # Linear flattens (N, 3, 32, 32) itself


class MLP(chainer.Chain):
    def __init__(self, initialW=None):                   # None: the link's default initialiser
        super().__init__()
        with self.init_scope():                          # biases start at 0 in both variants
            self.fc1 = L.Linear(3072, hp.hidden_units, initialW=initialW)
            self.fc2 = L.Linear(hp.hidden_units, hp.hidden_units, initialW=initialW)
            self.fc3 = L.Linear(hp.hidden_units, 10, initialW=initialW)

    def forward(self, x):
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


def train_and_test(model):
    """SGD + momentum on the same batches, in order, every time; then the test accuracy."""
    optimizer = chainer.optimizers.MomentumSGD(lr=hp.learning_rate, momentum=hp.momentum)
    optimizer.setup(model)
    for _ in range(hp.epochs):
        for start in range(0, len(x_train) - hp.batch_size + 1, hp.batch_size):
            loss = F.softmax_cross_entropy(model(x_train[start:start + hp.batch_size]),
                                           y_train[start:start + hp.batch_size])
            model.cleargrads()
            loss.backward()
            optimizer.update()
    with chainer.no_backprop_mode():
        return {"accuracy": float((model(x_test).array.argmax(axis=1) == y_test).mean())}


# %% tags=["variants"]
def default_model():
    # initialW=None means chainer.initializers.LeCunNormal(): N(0, 1/fan_in).
    return MLP()


def glorot_model():
    return MLP(chainer.initializers.GlorotUniform())    # U(±√(6 / (fan_in + fan_out)))


def default(seed):
    np.random.seed(seed)                                 # Chainer's initialisers draw from numpy's generator
    return train_and_test(default_model())


def glorot(seed):
    np.random.seed(seed)
    return train_and_test(glorot_model())


for name, build in (("default", default_model), ("glorot", glorot_model)):
    first = build().fc1
    print(f"{name}: first layer's weights within ±{abs(first.W.array).max():.3f} (std {first.W.array.std():.3f}), "
          f"biases within ±{abs(first.b.array).max():.3f}")

# %% tags=["measure"]
lesson.compare(hp, {"default": default, "glorot": glorot})
