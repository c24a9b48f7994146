# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # Default initialisers against Glorot-uniform, in MXNet Gluon

# %% tags=["setup"]
import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("initialisers")
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
# Dense flattens its input itself: (N, 3, 32, 32) arrives as 3072 values.
x_train, y_train, x_test, y_test = (mx.nd.array(a) for a in (x_train, y_train, x_test, y_test))
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()


def mlp():
    model = nn.HybridSequential()
    model.add(nn.Dense(hp.hidden_units, activation="relu"), nn.Dense(hp.hidden_units, activation="relu"),
              nn.Dense(10))
    return model


def train_and_test(model):
    """SGD + momentum on the same batches, in order, every time; then the test accuracy."""
    model.hybridize()
    trainer = gluon.Trainer(model.collect_params(), "sgd",
                            {"learning_rate": hp.learning_rate, "momentum": hp.momentum})
    for _ in range(hp.epochs):
        for start in range(0, len(x_train) - hp.batch_size + 1, hp.batch_size):
            with autograd.record():
                loss = loss_fn(model(x_train[start:start + hp.batch_size]), y_train[start:start + hp.batch_size])
            loss.backward()
            trainer.step(hp.batch_size)
    accuracy = (model(x_test).argmax(axis=1) == y_test).mean().asscalar()   # asscalar() waits for the work
    return {"accuracy": float(accuracy)}


# %% tags=["variants"]
def default_model():
    # Block.initialize(init=mx.init.Uniform()): every weight U(±0.07), whatever the layer's size; Dense's
    # bias_initializer="zeros" keeps biases at 0. (Shapes, and so the draws, wait for the first batch.)
    model = mlp()
    model.initialize()
    return model


def glorot_model():
    model = mlp()
    # Glorot-uniform in MXNet's words: U(±√(magnitude / ((fan_in + fan_out) / 2))) with magnitude 3.
    model.initialize(mx.init.Xavier(rnd_type="uniform", factor_type="avg", magnitude=3))
    return model


def default(seed):
    mx.random.seed(seed)                                 # the round's seed draws the initial weights
    return train_and_test(default_model())


def glorot(seed):
    mx.random.seed(seed)
    return train_and_test(glorot_model())


for name, build in (("default", default_model), ("glorot", glorot_model)):
    model = build()
    model(x_test[:1])                                    # the first call fixes the shapes and draws the weights
    first = model[0]
    print(f"{name}: first layer's weights within ±{first.weight.data().abs().max().asscalar():.3f}, "
          f"biases within ±{first.bias.data().abs().max().asscalar():.3f}")

# %% tags=["measure"]
lesson.compare(hp, {"default": default, "glorot": glorot})
