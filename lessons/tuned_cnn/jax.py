# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: JAX'
#     language: python
#     name: rosetta-jax
# ---

# %% [markdown]
# # The CNN's training step, as written and tuned, in JAX (Flax NNX)
# The snippet already compiles its step with `nnx.jit`: `uncompiled` takes that away, to show what it
# buys; `cached` is Flax's documented speed-up for NNX's object layer, `nnx.cached_partial`.

# %% tags=["setup"]
import time

import jax
import optax
from flax import nnx

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("tuned_cnn")
jax.config.update("jax_default_matmul_precision", "highest")        # float32, as in the snippet
x_train, y_train, _, _ = cifar10.load(hp, layout="NHWC")             # channels last: Flax's layout
x_train, y_train = jax.device_put((x_train, y_train))
order_key = jax.random.key(hp.seed)


class VGGish(nnx.Module):
    """The CNN benchmark's network, copied from its snippet."""

    def __init__(self, rngs, n_classes=10):
        glorot = nnx.initializers.glorot_uniform()
        self.conv1 = nnx.Conv(3, 50, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.conv2 = nnx.Conv(50, 50, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.conv3 = nnx.Conv(50, 100, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.conv4 = nnx.Conv(100, 100, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.fc1 = nnx.Linear(100 * 8 * 8, 512, kernel_init=glorot, rngs=rngs)
        self.fc2 = nnx.Linear(512, n_classes, kernel_init=glorot, rngs=rngs)
        self.dropout_conv = nnx.Dropout(hp.dropout_conv, rngs=rngs)
        self.dropout_dense = nnx.Dropout(hp.dropout_dense, rngs=rngs)

    def __call__(self, x):
        x = nnx.relu(self.conv1(x))
        x = nnx.relu(nnx.max_pool(self.conv2(x), (2, 2), strides=(2, 2)))
        x = self.dropout_conv(x)
        x = nnx.relu(self.conv3(x))
        x = nnx.relu(nnx.max_pool(self.conv4(x), (2, 2), strides=(2, 2)))
        x = self.dropout_conv(x)
        x = nnx.relu(self.fc1(x.reshape(x.shape[0], -1)))
        x = self.dropout_dense(x)
        return self.fc2(x)


def train_step(model, optimizer, x, y):
    """The snippet's step: the loss, its gradients, the update (undecorated here: each variant compiles it its way)."""
    def loss_fn(model):
        return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


def trainer(step):
    """The snippet's loop, for `batches` steps per call; `step(x, y)` trains on one batch."""
    def train():
        order = jax.random.permutation(order_key, len(x_train))
        for i in range(hp.batches):
            rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
            loss = step(x_train[rows], y_train[rows])
        float(loss)                                      # asynchronous dispatch: wait for the steps
    return train


def fresh():
    """The model (the same seed: the same starting weights in every variant), training, with its optimizer."""
    model = VGGish(nnx.Rngs(params=hp.seed, dropout=hp.seed + 1))
    model.train()
    return model, nnx.Optimizer(model, optax.sgd(hp.learning_rate, momentum=hp.momentum), wrt=nnx.Param)


# %% tags=["variants"]
# As written: nnx.jit traces and compiles the step once; every call still walks the model and optimizer
# objects in Python, to split them into arrays for the compiled function and merge the results back.
model, optimizer = fresh()
compiled_step = nnx.jit(train_step)
as_written = trainer(lambda x, y: compiled_step(model, optimizer, x, y))

# Cached: nnx.cached_partial binds the model and optimizer to the compiled step once and keeps their
# split (Flax's performance notes for NNX): a call passes only the batch.
cached = trainer(nnx.cached_partial(nnx.jit(train_step), *fresh()))

# Uncompiled: no jit, every operation dispatched from Python one at a time (what compiling buys).
plain_model, plain_optimizer = fresh()
uncompiled = trainer(lambda x, y: train_step(plain_model, plain_optimizer, x, y))

# %% tags=["measure"]
variants = {"as_written": as_written, "cached": cached, "uncompiled": uncompiled}
first_call = {}                                          # the first call, compilation included, timed once
for name, train in variants.items():
    started = time.perf_counter()
    train()
    first_call[name] = {"first_call_seconds": time.perf_counter() - started}
lesson.compare(hp, variants, facts=first_call)
