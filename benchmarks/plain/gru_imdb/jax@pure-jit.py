"""Plain-script twin of snippets/gru_imdb/jax.py without Flax: pure functions under jax.jit. The same embedding +
GRU classifier as JAX's own documentation writes it: parameters in a dict, the recurrence a `jax.lax.scan`, one
training step under `jax.jit` (the first step's compilation included, as in the tab). Beside the Flax NNX twin,
it tells what NNX's object layer costs."""
import json
import time

import jax
import jax.numpy as jnp
import optax

from rosetta import settings
from rosetta.data import imdb

hp = settings("gru_imdb")
params_key, shuffle_key = jax.random.split(jax.random.key(hp.seed))

x_train, y_train, _, _ = imdb.load(hp)
x_train, y_train = jax.device_put((x_train, y_train))

E, H = hp.embedding_size, hp.hidden_size
shapes = {"embedding": (hp.vocabulary_size, E), "w_i": (E, 3 * H), "w_h": (H, 3 * H), "w_fc": (H, 2)}
params = {name: jax.random.uniform(key, shape, jnp.float32, -hp.init_scale, hp.init_scale)   # uniform weights
          for (name, shape), key in zip(shapes.items(), jax.random.split(params_key, len(shapes)))}
params |= {"b_i": jnp.zeros(3 * H), "b_h": jnp.zeros(3 * H), "b_fc": jnp.zeros(2)}             # zero biases


def gru_step(params, h, x):                              # cuDNN's cell: r applied to the recurrent part's n
    x_r, x_z, x_n = jnp.split(x @ params["w_i"] + params["b_i"], 3, axis=-1)
    h_r, h_z, h_n = jnp.split(h @ params["w_h"] + params["b_h"], 3, axis=-1)
    r, z = jax.nn.sigmoid(x_r + h_r), jax.nn.sigmoid(x_z + h_z)
    h = (1 - z) * jnp.tanh(x_n + r * h_n) + z * h
    return h, None


def network(params, tokens):
    embedded = params["embedding"][tokens]               # (batch, time, E)
    h0 = jnp.zeros((tokens.shape[0], H))
    last, _ = jax.lax.scan(lambda h, x: gru_step(params, h, x), h0, jnp.swapaxes(embedded, 0, 1))   # over time
    return last @ params["w_fc"] + params["b_fc"]


optimizer = optax.adam(hp.learning_rate, b1=hp.beta_1, b2=hp.beta_2, eps=hp.epsilon)
opt_state = optimizer.init(params)


@jax.jit
def train_step(params, opt_state, x, y):
    def loss_fn(params):
        return optax.softmax_cross_entropy_with_integer_labels(network(params, x), y).mean()

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
        params, opt_state, loss = train_step(params, opt_state, x_train[rows], y_train[rows])
loss.block_until_ready()                    # asynchronous dispatch: wait for the last step
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": hp.epochs * n_batches * hp.batch_size}))
