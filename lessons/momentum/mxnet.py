# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # Momentum: classic, PyTorch's, and unit gain, in MXNet Gluon

# %% tags=["setup"]
import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("momentum")
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
x_train, y_train, x_test, y_test = (mx.nd.array(a) for a in (x_train, y_train, x_test, y_test))
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()


def mlp(seed):
    mx.random.seed(seed)                                 # the same seed, the same initial weights
    model = nn.HybridSequential()
    # in_units given: the weights exist at once (no deferred initialisation), so the hand-written
    # optimizers can allocate their velocities before the first batch.
    model.add(nn.Dense(hp.hidden_units, activation="relu", in_units=3072), nn.Dense(10, in_units=hp.hidden_units))
    model.initialize(mx.init.Xavier(rnd_type="uniform", factor_type="avg", magnitude=3))   # Glorot-uniform
    return model


def train(seed, optimizer_for):
    """The same batches in order; the learning rate drops by lr_drop after half of the epochs."""
    model = mlp(seed)
    step = optimizer_for(model.collect_params())
    for epoch in range(hp.epochs):
        lr = hp.learning_rate * (hp.lr_drop if epoch >= hp.epochs // 2 else 1)
        for start in range(0, len(x_train) - hp.batch_size + 1, hp.batch_size):
            with autograd.record():
                loss = loss_fn(model(x_train[start:start + hp.batch_size]), y_train[start:start + hp.batch_size])
            loss.backward()                              # the gradient of the SUM of the batch's losses
            step(lr)
    return model


def evaluate(model):
    return {"loss": float(loss_fn(model(x_train), y_train).mean().asscalar()),   # on the whole training set
            "accuracy": float((model(x_test).argmax(axis=1) == y_test).mean().asscalar())}


# %% tags=["variants"]
def framework_sgd(params):
    trainer = gluon.Trainer(params, "sgd", {"learning_rate": hp.learning_rate, "momentum": hp.momentum})

    def step(lr):
        trainer.set_learning_rate(lr)
        trainer.step(hp.batch_size)                      # Gluon's momentum is the classic one
    return step


def classic_sgd(params):
    weights = list(params.values())
    velocities = [mx.nd.zeros_like(w.data()) for w in weights]

    def step(lr):
        for w, v in zip(weights, velocities):
            v[:] = hp.momentum * v - lr * w.grad() / hp.batch_size   # v = m·v − lr·g (g: the batch's mean)
            w.data()[:] += v
    return step


def unit_gain_sgd(params):
    weights = list(params.values())
    velocities = [mx.nd.zeros_like(w.data()) for w in weights]

    def step(lr):
        for w, v in zip(weights, velocities):
            v[:] = hp.momentum * v + (1 - hp.momentum) * w.grad() / hp.batch_size   # v = m·v + (1 − m)·g
            w.data()[:] -= lr * v
    return step


def framework(seed):
    return evaluate(train(seed, framework_sgd))


def classic(seed):
    return evaluate(train(seed, classic_sgd))


def unit_gain(seed):
    return evaluate(train(seed, unit_gain_sgd))


# Once, outside the timed calls: how far each run's weights end from classic momentum's (same start, same batches).
final = {name: [w.data() for w in train(hp.seed, optimizer_for).collect_params().values()]
         for name, optimizer_for in (("framework", framework_sgd), ("classic", classic_sgd),
                                     ("unit_gain", unit_gain_sgd))}
differences = {name: max(float((w - c).abs().max().asscalar()) for w, c in zip(final[name], final["classic"]))
               for name in ("framework", "unit_gain")}
print("largest weight difference from classic momentum:",
      ", ".join(f"{name} {value:.2e}" for name, value in differences.items()))

# %% tags=["measure"]
lesson.compare(hp, {"framework": framework, "classic": classic, "unit_gain": unit_gain},
               facts={name: {"max_weight_difference": value} for name, value in differences.items()})
