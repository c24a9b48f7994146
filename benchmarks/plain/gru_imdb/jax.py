"""Plain-script twin of snippets/gru_imdb/jax.py: the same Flax NNX embedding + scanned GRU classifier, its
training loop timed (the first step's compilation included, as in the tab)."""
import json
import time

import jax
import jax.numpy as jnp
import optax
from flax import nnx

from rosetta import settings
from rosetta.data import imdb

hp = settings("gru_imdb")
params_key, shuffle_key = jax.random.split(jax.random.key(hp.seed))

x_train, y_train, _, _ = imdb.load(hp)
x_train, y_train = jax.device_put((x_train, y_train))


def uniform(key, shape, dtype=jnp.float32):             # uniform weights, zero biases (the snippet's init)
    return jax.random.uniform(key, shape, dtype, -hp.init_scale, hp.init_scale)


class GRUCell(nnx.RNNCellBase):                         # cuDNN's cell, as in the snippet
    def __init__(self, in_features, hidden_features, *, rngs):
        self.hidden_features = hidden_features
        self.dense_i = nnx.Linear(in_features, 3 * hidden_features, kernel_init=uniform, rngs=rngs)
        self.dense_h = nnx.Linear(hidden_features, 3 * hidden_features, kernel_init=uniform, rngs=rngs)

    def __call__(self, h, x):
        x_r, x_z, x_n = jnp.split(self.dense_i(x), 3, axis=-1)
        h_r, h_z, h_n = jnp.split(self.dense_h(h), 3, axis=-1)
        r, z = nnx.sigmoid(x_r + h_r), nnx.sigmoid(x_z + h_z)
        h = (1 - z) * nnx.tanh(x_n + r * h_n) + z * h
        return h, h

    def initialize_carry(self, input_shape, rngs=None):
        return jnp.zeros((*input_shape[:-1], self.hidden_features))

    @property
    def num_feature_axes(self):
        return 1


class GRUClassifier(nnx.Module):
    def __init__(self, rngs):
        self.embedding = nnx.Embed(hp.vocabulary_size, hp.embedding_size, embedding_init=uniform, rngs=rngs)
        self.gru = nnx.RNN(GRUCell(hp.embedding_size, hp.hidden_size, rngs=rngs), return_carry=True)
        self.fc = nnx.Linear(hp.hidden_size, 2, kernel_init=uniform, rngs=rngs)

    def __call__(self, tokens):
        last_hidden, _ = self.gru(self.embedding(tokens))
        return self.fc(last_hidden)


model = GRUClassifier(nnx.Rngs(params=params_key))
optimizer = nnx.Optimizer(model, optax.adam(hp.learning_rate, b1=hp.beta_1, b2=hp.beta_2, eps=hp.epsilon),
                          wrt=nnx.Param)


@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


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
