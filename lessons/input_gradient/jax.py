# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: JAX'
#     language: python
#     name: rosetta-jax
# ---

# %% [markdown]
# # No gradient to the input, in JAX (Flax NNX)

# %% tags=["setup"]
import jax
import optax
from flax import nnx

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("input_gradient")
jax.config.update("jax_default_matmul_precision", "highest")        # float32, as in the snippet
x_train, y_train, _, _ = cifar10.load(hp, layout="NHWC")             # channels last: Flax's layout
x_train, y_train = jax.device_put((x_train, y_train))


class VGGish(nnx.Module):
    """The CNN benchmark's network, without dropout."""

    def __init__(self, rngs):
        glorot = nnx.initializers.glorot_uniform()
        self.conv1 = nnx.Conv(3, 50, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.conv2 = nnx.Conv(50, 50, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.conv3 = nnx.Conv(50, 100, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.conv4 = nnx.Conv(100, 100, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.fc1 = nnx.Linear(100 * 8 * 8, 512, kernel_init=glorot, rngs=rngs)
        self.fc2 = nnx.Linear(512, 10, kernel_init=glorot, rngs=rngs)

    def __call__(self, x):
        x = nnx.relu(nnx.max_pool(self.conv2(nnx.relu(self.conv1(x))), (2, 2), strides=(2, 2)))
        x = nnx.relu(nnx.max_pool(self.conv4(nnx.relu(self.conv3(x))), (2, 2), strides=(2, 2)))
        return self.fc2(nnx.relu(self.fc1(x.reshape(x.shape[0], -1))))


def loss_fn(model, images, labels):
    return optax.softmax_cross_entropy_with_integer_labels(model(images), labels).mean()


def trainer(argnums):
    """The snippet's training step, differentiated with respect to the arguments `argnums` names."""
    model = VGGish(nnx.Rngs(params=hp.seed))                         # the same seed: the same weights in both
    optimizer = nnx.Optimizer(model, optax.sgd(hp.learning_rate, momentum=hp.momentum), wrt=nnx.Param)

    @nnx.jit
    def step(model, optimizer, images, labels):
        loss, gradients = nnx.value_and_grad(loss_fn, argnums=argnums)(model, images, labels)
        if argnums == 0:
            optimizer.update(model, gradients)
            return loss, ()
        optimizer.update(model, gradients[0])
        # Returned, so that it is computed: XLA drops what no output uses.
        return loss, gradients[1]

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            loss, _ = step(model, optimizer, x_train[rows], y_train[rows])
        loss.block_until_ready()                                    # asynchronous dispatch: wait for the steps
    return train


# %% tags=["variants"]
no_input_gradient = trainer(argnums=0)         # the weights' gradients only (nnx.grad's default)
input_gradient = trainer(argnums=(0, 1))       # and the images' gradient, asked for by argnums

# %% tags=["measure"]
lesson.compare(hp, {"no_input_gradient": no_input_gradient, "input_gradient": input_gradient})
