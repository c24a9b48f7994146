# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: JAX'
#     language: python
#     name: rosetta-jax
# ---

# %% [markdown]
# # Time-major input for a GRU, in JAX (Flax NNX)

# %% tags=["setup"]
import jax
import jax.numpy as jnp
import optax
from flax import nnx

from rosetta import lesson
from rosetta.data import imdb

hp = lesson.settings("time_major")
jax.config.update("jax_default_matmul_precision", "highest")        # float32, as in the snippet
x_train, y_train, x_test, _ = imdb.load(hp)             # int32 token ids (N, max_length), labels 1 = positive
x_train, y_train, x_test = jax.device_put((x_train, y_train, x_test[:hp.batch_size]))


class GRUCell(nnx.RNNCellBase):
    """The GRU benchmark's cell (cuDNN's form: r multiplies the recurrent product and its bias)."""

    def __init__(self, in_features, hidden_features, *, rngs):
        self.hidden_features = hidden_features
        self.dense_i = nnx.Linear(in_features, 3 * hidden_features, rngs=rngs)
        self.dense_h = nnx.Linear(hidden_features, 3 * hidden_features, rngs=rngs)

    def __call__(self, h, x):
        x_r, x_z, x_n = jnp.split(self.dense_i(x), 3, axis=-1)
        h_r, h_z, h_n = jnp.split(self.dense_h(h), 3, axis=-1)
        r, z = nnx.sigmoid(x_r + h_r), nnx.sigmoid(x_z + h_z)
        h = (1 - z) * nnx.tanh(x_n + r * h_n) + z * h
        return h, h                                      # (new carry, output)

    def initialize_carry(self, input_shape, rngs=None):
        return jnp.zeros((*input_shape[:-1], self.hidden_features))   # h starts at 0

    @property
    def num_feature_axes(self):
        return 1


class Classifier(nnx.Module):
    """The RNN benchmark's model: embedding → GRU (its last hidden state) → dense 2."""

    def __init__(self, time_major, rngs):
        self.time_major = time_major
        self.embedding = nnx.Embed(hp.vocabulary_size, hp.embedding_size, rngs=rngs)
        # nnx.RNN scans the cell over the time axis (jax.lax.scan runs over its input's first axis):
        # batch-major input is moved time-first for the scan and its outputs moved back.
        self.gru = nnx.RNN(GRUCell(hp.embedding_size, hp.hidden_size, rngs=rngs), time_major=time_major,
                           return_carry=True)
        self.fc = nnx.Linear(hp.hidden_size, 2, rngs=rngs)

    def __call__(self, tokens):                          # tokens: (N, T), as the data comes
        # Time-major: look up the transposed ids, (T, N) → (T, N, embedding); no transpose of the features.
        last_hidden, _ = self.gru(self.embedding(tokens.T if self.time_major else tokens))
        return self.fc(last_hidden)                      # logits


def trainer(model):
    optimizer = nnx.Optimizer(model, optax.adam(hp.learning_rate), wrt=nnx.Param)

    @nnx.jit
    def step(model, optimizer, x, y):
        def loss_fn(model):
            return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()
        loss, grads = nnx.value_and_grad(loss_fn)(model)
        optimizer.update(model, grads)
        return loss

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            loss = step(model, optimizer, x_train[rows], y_train[rows])
        loss.block_until_ready()                         # asynchronous dispatch: wait for the steps
    return train


# %% tags=["variants"]
batch_major = Classifier(time_major=False, rngs=nnx.Rngs(hp.seed))   # the GRU benchmark's tab
time_major = Classifier(time_major=True, rngs=nnx.Rngs(hp.seed))     # the same seed: the same weights
max_difference = float(jnp.abs(batch_major(x_test) - time_major(x_test)).max())
print(f"largest difference between the two layouts' logits: {max_difference:.2e}")

# %% tags=["measure"]
lesson.compare(hp, {"batch_major": trainer(batch_major), "time_major": trainer(time_major)},
               facts={"time_major": {"max_difference": max_difference}})
