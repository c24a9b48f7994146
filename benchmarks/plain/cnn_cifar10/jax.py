"""Plain-script twin of snippets/cnn_cifar10/jax.py: the same Flax NNX CNN, its training loop timed (the first
step's compilation included, as in the tab)."""
import json
import time
from functools import partial

import jax
import jax.numpy as jnp
import optax
from flax import nnx

from rosetta import settings
from rosetta.data import cifar10

hp = settings("cnn_cifar10")
params_key, dropout_key, shuffle_key = jax.random.split(jax.random.key(hp.seed), 3)

x_train, y_train, _, _ = cifar10.load(hp, layout="NHWC")
x_train, y_train = jax.device_put((x_train, y_train))

rngs = nnx.Rngs(params=params_key, dropout=dropout_key)
glorot = nnx.initializers.glorot_uniform()                  # Glorot-uniform, zero biases (the snippet's init)
conv = partial(nnx.Conv, kernel_size=(3, 3), padding=1, kernel_init=glorot, rngs=rngs)
pool = partial(nnx.max_pool, window_shape=(2, 2), strides=(2, 2))
model = nnx.Sequential(
    conv(3, 50), nnx.relu, conv(50, 50), pool, nnx.relu, nnx.Dropout(hp.dropout_conv, rngs=rngs),
    conv(50, 100), nnx.relu, conv(100, 100), pool, nnx.relu, nnx.Dropout(hp.dropout_conv, rngs=rngs),
    lambda x: x.reshape(x.shape[0], -1),
    nnx.Linear(100 * 8 * 8, 512, kernel_init=glorot, rngs=rngs), nnx.relu, nnx.Dropout(hp.dropout_dense, rngs=rngs),
    nnx.Linear(512, 10, kernel_init=glorot, rngs=rngs),
)
optimizer = nnx.Optimizer(model, optax.sgd(hp.learning_rate, momentum=hp.momentum), wrt=nnx.Param)


@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


model.train()
shuffle = getattr(hp, "shuffle", True)      # a new order every epoch; the equivalence checks turn it off
n_batches = len(x_train) // hp.batch_size
started = time.perf_counter()
for _ in range(hp.epochs):
    shuffle_key, epoch_key = jax.random.split(shuffle_key)
    order = jax.random.permutation(epoch_key, len(x_train)) if shuffle else jnp.arange(len(x_train))
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        loss = train_step(model, optimizer, x_train[rows], y_train[rows])
loss.block_until_ready()                    # asynchronous dispatch: wait for the last step
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": hp.epochs * n_batches * hp.batch_size}))
