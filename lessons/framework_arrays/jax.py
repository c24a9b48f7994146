# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: JAX'
#     language: python
#     name: rosetta-jax
# ---

# %% [markdown]
# # Keep the data in the framework's arrays, in JAX (Flax NNX)

# %% tags=["setup"]
import jax
import optax
from flax import nnx

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("framework_arrays")
jax.config.update("jax_default_matmul_precision", "highest")        # float32, as the other rows compute
x_numpy, y_numpy, _, _ = cifar10.load(hp, layout="NHWC")
n_batches = len(x_numpy) // hp.batch_size


class MLP(nnx.Module):                                              # 3072-512-10: cheap steps, so feeding them shows
    def __init__(self, rngs):
        self.hidden = nnx.Linear(3072, hp.hidden, rngs=rngs)
        self.out = nnx.Linear(hp.hidden, 10, rngs=rngs)

    def __call__(self, x):
        return self.out(nnx.relu(self.hidden(x.reshape(x.shape[0], -1))))


model = MLP(nnx.Rngs(hp.seed))
optimizer = nnx.Optimizer(model, optax.sgd(hp.learning_rate, momentum=hp.momentum), wrt=nnx.Param)


@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()
    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


# %% tags=["variants"]
x_train, y_train = jax.device_put((x_numpy, y_numpy))                 # converted once, onto the device


def framework_arrays():
    for i in range(n_batches):
        rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
        loss = train_step(model, optimizer, x_train[rows], y_train[rows])
    loss.block_until_ready()                                        # asynchronous dispatch: wait for the steps


def converted_per_step():
    for i in range(n_batches):
        rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
        # A jitted function called with NumPy arrays transfers them to the device (a copy) at every call.
        loss = train_step(model, optimizer, x_numpy[rows], y_numpy[rows])
    loss.block_until_ready()


# %% tags=["measure"]
lesson.compare(hp, {"framework_arrays": framework_arrays, "converted_per_step": converted_per_step})
