# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: JAX'
#     language: python
#     name: rosetta-jax
# ---

# %% [markdown]
# # Default initialisers against Glorot-uniform, in JAX (Flax NNX)

# %% tags=["setup"]
import jax
import optax
from flax import nnx

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("initialisers")
jax.config.update("jax_default_matmul_precision", "highest")        # float32, as the other rows compute
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NHWC")
# The MLP sees each image as one vector of 3072 values.
x_train, x_test = x_train.reshape(len(x_train), -1), x_test.reshape(len(x_test), -1)


class MLP(nnx.Module):
    def __init__(self, rngs, **initialisers):
        self.hidden1 = nnx.Linear(3072, hp.hidden_units, rngs=rngs, **initialisers)
        self.hidden2 = nnx.Linear(hp.hidden_units, hp.hidden_units, rngs=rngs, **initialisers)
        self.out = nnx.Linear(hp.hidden_units, 10, rngs=rngs, **initialisers)

    def __call__(self, x):
        return self.out(nnx.relu(self.hidden2(nnx.relu(self.hidden1(x)))))


@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()
    optimizer.update(model, nnx.grad(loss_fn)(model))


@nnx.jit
def predict(model, x):
    return model(x).argmax(axis=1)


def train_and_test(model):
    """SGD + momentum on the same batches, in order, every time; then the test accuracy."""
    optimizer = nnx.Optimizer(model, optax.sgd(hp.learning_rate, momentum=hp.momentum), wrt=nnx.Param)
    for _ in range(hp.epochs):
        for start in range(0, len(x_train) - hp.batch_size + 1, hp.batch_size):
            train_step(model, optimizer, x_train[start:start + hp.batch_size], y_train[start:start + hp.batch_size])
    return {"accuracy": float((predict(model, x_test) == y_test).mean())}


# %% tags=["variants"]
def default_model(seed):
    # nnx.Linear's defaults: LeCun-normal kernels, N(0, 1/fan_in) truncated, and zero biases.
    return MLP(nnx.Rngs(params=seed))


def glorot_model(seed):
    return MLP(nnx.Rngs(params=seed), kernel_init=nnx.initializers.glorot_uniform(),   # U(±√(6 / (fan_in + fan_out)))
               bias_init=nnx.initializers.zeros)


def default(seed):
    return train_and_test(default_model(seed))                      # the round's seed draws the initial weights


def glorot(seed):
    return train_and_test(glorot_model(seed))


for name, build in (("default", default_model), ("glorot", glorot_model)):
    first = build(hp.seed).hidden1
    print(f"{name}: first layer's weights within ±{float(abs(first.kernel.value).max()):.3f}, "
          f"biases within ±{float(abs(first.bias.value).max()):.3f}")

# %% tags=["measure"]
lesson.compare(hp, {"default": default, "glorot": glorot})
