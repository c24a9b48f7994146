"""Plain-script twin of snippets/cnn_cifar10/jax.py without Flax: pure functions under jax.jit. The same CNN as
JAX's own documentation writes it: parameters in a dict, the network a function, one training step under
`jax.jit` (the first step's compilation included, as in the tab). Beside the Flax NNX twin, it tells what NNX's
object layer costs."""
import json
import time

import jax
import jax.numpy as jnp
import optax

from rosetta import settings
from rosetta.data import cifar10

hp = settings("cnn_cifar10")
params_key, dropout_key, shuffle_key = jax.random.split(jax.random.key(hp.seed), 3)

x_train, y_train, _, _ = cifar10.load(hp, layout="NHWC")
x_train, y_train = jax.device_put((x_train, y_train))

glorot = jax.nn.initializers.glorot_uniform()          # Glorot-uniform kernels, zero biases (the snippet's init)
shapes = {"conv1": (3, 3, 3, 50), "conv2": (3, 3, 50, 50), "conv3": (3, 3, 50, 100), "conv4": (3, 3, 100, 100),
          "fc1": (100 * 8 * 8, 512), "fc2": (512, 10)}
params = {name: {"w": glorot(key, shape), "b": jnp.zeros(shape[-1])}
          for (name, shape), key in zip(shapes.items(), jax.random.split(params_key, len(shapes)))}


def conv(p, x):                                          # 3x3, padding 1: "SAME"; NHWC images, HWIO kernels
    y = jax.lax.conv_general_dilated(x, p["w"], (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return y + p["b"]


def max_pool(x):
    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def dropout(key, x, rate):
    keep = jax.random.bernoulli(key, 1 - rate, x.shape)
    return jnp.where(keep, x / (1 - rate), 0)


def network(params, x, key):                             # training mode: dropout on
    k1, k2, k3 = jax.random.split(key, 3)
    x = jax.nn.relu(conv(params["conv1"], x))
    x = dropout(k1, jax.nn.relu(max_pool(conv(params["conv2"], x))), hp.dropout_conv)
    x = jax.nn.relu(conv(params["conv3"], x))
    x = dropout(k2, jax.nn.relu(max_pool(conv(params["conv4"], x))), hp.dropout_conv)
    x = x.reshape(x.shape[0], -1)
    x = dropout(k3, jax.nn.relu(x @ params["fc1"]["w"] + params["fc1"]["b"]), hp.dropout_dense)
    return x @ params["fc2"]["w"] + params["fc2"]["b"]


optimizer = optax.sgd(hp.learning_rate, momentum=hp.momentum)
opt_state = optimizer.init(params)


@jax.jit
def train_step(params, opt_state, x, y, key):
    def loss_fn(params):
        return optax.softmax_cross_entropy_with_integer_labels(network(params, x, key), y).mean()

    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = optimizer.update(grads, opt_state)
    return optax.apply_updates(params, updates), opt_state, loss


shuffle = getattr(hp, "shuffle", True)      # a new order every epoch; the equivalence checks turn it off
n_batches = len(x_train) // hp.batch_size
started = time.perf_counter()
for _ in range(hp.epochs):
    shuffle_key, epoch_key = jax.random.split(shuffle_key)
    order = jax.random.permutation(epoch_key, len(x_train)) if shuffle else jnp.arange(len(x_train))
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        dropout_key, step_key = jax.random.split(dropout_key)
        params, opt_state, loss = train_step(params, opt_state, x_train[rows], y_train[rows], step_key)
loss.block_until_ready()                    # asynchronous dispatch: wait for the last step
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": hp.epochs * n_batches * hp.batch_size}))
