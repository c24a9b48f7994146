# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: JAX'
#     language: python
#     name: rosetta-jax
# ---

# %% [markdown]
# # ReLU after max-pooling, in JAX (Flax NNX)

# %% tags=["setup"]
import jax
import optax
from flax import nnx

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("relu_after_pool")
jax.config.update("jax_default_matmul_precision", "highest")        # float32, as the other rows compute
x_train, y_train, x_test, _ = cifar10.load(hp, layout="NHWC")        # channels last: Flax's layout


class VGGish(nnx.Module):
    """The CNN benchmark's network (dropout left out: it does not change the order's cost)."""

    def __init__(self, block, rngs):
        self.block = block
        self.conv1 = nnx.Conv(3, 50, (3, 3), padding=1, rngs=rngs)
        self.conv2 = nnx.Conv(50, 50, (3, 3), padding=1, rngs=rngs)
        self.conv3 = nnx.Conv(50, 100, (3, 3), padding=1, rngs=rngs)
        self.conv4 = nnx.Conv(100, 100, (3, 3), padding=1, rngs=rngs)
        self.fc1 = nnx.Linear(100 * 8 * 8, 512, rngs=rngs)
        self.fc2 = nnx.Linear(512, 10, rngs=rngs)

    def __call__(self, x):
        x = self.block(self.conv2(nnx.relu(self.conv1(x))))
        x = self.block(self.conv4(nnx.relu(self.conv3(x))))
        return self.fc2(nnx.relu(self.fc1(x.reshape(x.shape[0], -1))))


# %% tags=["variants"]
def relu_then_pool(x):
    return nnx.max_pool(nnx.relu(x), (2, 2), strides=(2, 2))


def pool_then_relu(x):                                              # a quarter of the values reach the ReLU
    return nnx.relu(nnx.max_pool(x, (2, 2), strides=(2, 2)))


first = VGGish(relu_then_pool, nnx.Rngs(hp.seed))
second = VGGish(pool_then_relu, nnx.Rngs(hp.seed))                  # the same seed: the same weights in both
logits = nnx.jit(lambda model, x: model(x))
max_difference = float(abs(logits(first, x_test) - logits(second, x_test)).max())
print(f"largest difference between the two orders' logits: {max_difference:.2e}")


@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()
    optimizer.update(model, nnx.grad(loss_fn)(model))


def trainer(model):
    optimizer = nnx.Optimizer(model, optax.sgd(hp.learning_rate, momentum=hp.momentum), wrt=nnx.Param)

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            train_step(model, optimizer, x_train[rows], y_train[rows])
        jax.block_until_ready(nnx.state(model))                    # asynchronous dispatch: wait for the steps
    return train


# %% tags=["measure"]
lesson.compare(hp, {"relu_then_pool": trainer(first), "pool_then_relu": trainer(second)},
               facts={"pool_then_relu": {"max_difference": max_difference}})
