# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: JAX'
#     language: python
#     name: rosetta-jax
# ---

# %% [markdown]
# # Blocking reads in the training loop, in JAX (Flax NNX)

# %% tags=["setup"]
import jax
import jax.numpy as jnp
import optax
from flax import nnx

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("blocking_calls")
jax.config.update("jax_default_matmul_precision", "highest")        # float32, as in the snippet
x_train, y_train, _, _ = cifar10.load(hp, layout="NHWC")             # channels last: Flax's layout
x_train, y_train = jax.device_put((x_train, y_train))


class VGGish(nnx.Module):
    """The CNN benchmark's network."""

    def __init__(self, rngs):
        glorot = nnx.initializers.glorot_uniform()
        self.conv1 = nnx.Conv(3, 50, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.conv2 = nnx.Conv(50, 50, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.conv3 = nnx.Conv(50, 100, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.conv4 = nnx.Conv(100, 100, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.fc1 = nnx.Linear(100 * 8 * 8, 512, kernel_init=glorot, rngs=rngs)
        self.fc2 = nnx.Linear(512, 10, kernel_init=glorot, rngs=rngs)
        self.dropout_conv = nnx.Dropout(hp.dropout_conv, rngs=rngs)
        self.dropout_dense = nnx.Dropout(hp.dropout_dense, rngs=rngs)

    def __call__(self, x):
        x = nnx.relu(nnx.max_pool(self.conv2(nnx.relu(self.conv1(x))), (2, 2), strides=(2, 2)))
        x = self.dropout_conv(x)
        x = nnx.relu(nnx.max_pool(self.conv4(nnx.relu(self.conv3(x))), (2, 2), strides=(2, 2)))
        x = self.dropout_conv(x)
        x = self.dropout_dense(nnx.relu(self.fc1(x.reshape(x.shape[0], -1))))
        return self.fc2(x)


model = VGGish(nnx.Rngs(params=hp.seed, dropout=hp.seed + 1))
optimizer = nnx.Optimizer(model, optax.sgd(hp.learning_rate, momentum=hp.momentum), wrt=nnx.Param)


@nnx.jit
def compiled_step(model, optimizer, x, y):
    def loss_fn(model):
        return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


def train_step(i):
    rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
    return compiled_step(model, optimizer, x_train[rows], y_train[rows])   # an array: queued, not yet computed


# %% tags=["variants"]
# JAX dispatches asynchronously, on a CPU too: a step returns as soon as its work is queued, and
# float() waits for it (and for everything queued before it).
def read_every_step():
    running = 0.0
    for i in range(hp.batches):
        running += float(train_step(i))                  # waits for this step's loss
    return {"loss": running / hp.batches}


def read_at_end():
    running = jnp.zeros(())
    for i in range(hp.batches):
        running += train_step(i)                         # summed where it is computed, nothing waits
    return {"loss": float(running) / hp.batches}         # the one read, at the end


# %% tags=["measure"]
lesson.compare(hp, {"read_every_step": read_every_step, "read_at_end": read_at_end})
