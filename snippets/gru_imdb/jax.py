# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: JAX'
#     language: python
#     name: rosetta-jax
# ---

# %% [markdown]
# # GRU sentiment classifier on IMDB with JAX (Flax NNX)
# Embedding → one GRU layer, its cell scanned over time by `nnx.RNN` → the last hidden state →
# dense 2, trained with Optax's Adam in one training step that `nnx.jit` compiles on its first call.

# %% tags=["setup"]
# [imports]
import flax
import jax
import jax.numpy as jnp
import optax
from flax import nnx

from rosetta import report, settings
from rosetta.data import imdb

# [seeds]
hp = settings("gru_imdb")
# JAX has no global random state: every random draw takes a key, split off from a seeded one.
params_key, shuffle_key = jax.random.split(jax.random.key(hp.seed))
# [device]
device = jax.devices()[0]
jax.config.update("jax_default_matmul_precision", "highest")   # float32, not TF32 (XLA's default on a GPU)
math_mode = "float32 (TF32 off), XLA autotune on" if device.platform == "gpu" else "float32"
print(f"JAX {jax.__version__}, Flax {flax.__version__}, Optax {optax.__version__} on {device.platform}, "
      f"{math_mode}, profile {hp.profile}")

# %% tags=["data"]
x_train, y_train, x_test, y_test = imdb.load(hp)        # int32 token ids (N, 150), labels 1 = positive
x_train, y_train, x_test, y_test = jax.device_put((x_train, y_train, x_test, y_test))
print("train", x_train.shape, "test", x_test.shape)


# %% tags=["model"]
# [network]
def uniform(key, shape, dtype=jnp.float32):             # the same start as the other tabs; biases 0
    return jax.random.uniform(key, shape, dtype, -hp.init_scale, hp.init_scale)


class GRUCell(nnx.RNNCellBase):
    """The other tabs' GRU cell (cuDNN's): gates r, z, n; r multiplies the recurrent product and its bias.
    Flax's own nnx.GRUCell has no recurrent bias, so it would train another model."""

    def __init__(self, in_features, hidden_features, *, rngs):
        self.hidden_features = hidden_features
        self.dense_i = nnx.Linear(in_features, 3 * hidden_features, kernel_init=uniform, rngs=rngs)
        self.dense_h = nnx.Linear(hidden_features, 3 * hidden_features, kernel_init=uniform, rngs=rngs)

    def __call__(self, h, x):
        x_r, x_z, x_n = jnp.split(self.dense_i(x), 3, axis=-1)
        h_r, h_z, h_n = jnp.split(self.dense_h(h), 3, axis=-1)
        r, z = nnx.sigmoid(x_r + h_r), nnx.sigmoid(x_z + h_z)
        n = nnx.tanh(x_n + r * h_n)
        h = (1 - z) * n + z * h
        return h, h                                      # (new carry, output)

    def initialize_carry(self, input_shape, rngs=None):
        return jnp.zeros((*input_shape[:-1], self.hidden_features))   # h starts at 0

    @property
    def num_feature_axes(self):
        return 1


class GRUClassifier(nnx.Module):
    def __init__(self, rngs):
        self.embedding = nnx.Embed(hp.vocabulary_size, hp.embedding_size, embedding_init=uniform, rngs=rngs)
        # nnx.RNN scans the cell over the time axis (jax.lax.scan): XLA compiles one loop.
        self.gru = nnx.RNN(GRUCell(hp.embedding_size, hp.hidden_size, rngs=rngs), return_carry=True)
        self.fc = nnx.Linear(hp.hidden_size, 2, kernel_init=uniform, rngs=rngs)

    def __call__(self, tokens):
        # All 150 steps, the end padding included, as in the other tabs: no seq_lengths.
        last_hidden, _ = self.gru(self.embedding(tokens))
        return self.fc(last_hidden)                      # logits


model = GRUClassifier(nnx.Rngs(params=params_key))
# [optimizer] Optax adds epsilon after the bias correction, as PyTorch does (see the note on Adam's epsilon).
optimizer = nnx.Optimizer(model, optax.adam(hp.learning_rate, b1=hp.beta_1, b2=hp.beta_2, eps=hp.epsilon),
                          wrt=nnx.Param)


# [loss, optimizer] one training step, compiled: the loss, its gradients, the update
@nnx.jit                                                # traced and compiled by XLA on its first call
def train_step(model, optimizer, x, y):
    def loss_fn(model):                                 # softmax inside, on logits; mean over the batch
        return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)                      # updates the model's parameters in place
    return loss


# [fused-kernel]
fused_kernel = "no (XLA: the scanned cell compiled into one loop)"
print(sum(p.size for p in jax.tree.leaves(nnx.state(model, nnx.Param))), "parameters; fused kernel:", fused_kernel)

# %% tags=["train"]
# [batches]
# The first call of train_step compiles it, as it would for any reader: that time is part of this cell, once.
n_batches = len(x_train) // hp.batch_size                # full batches only
for epoch in range(hp.epochs):
    shuffle_key, epoch_key = jax.random.split(shuffle_key)   # a new order each epoch
    order = jax.random.permutation(epoch_key, len(x_train)) if hp.shuffle else jnp.arange(len(x_train))
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        # [training-step]
        loss = train_step(model, optimizer, x_train[rows], y_train[rows])
    # [progress] JAX dispatches asynchronously: float() waits for the last step, and so for all of them.
    print(f"epoch {epoch + 1}: last batch loss {float(loss):.3f}")


# %% tags=["infer"]
# [predictions]
@nnx.jit
def predict(model, x):
    return model(x).argmax(axis=1)


predictions = jnp.concatenate([predict(model, x_test[i:i + hp.batch_size])
                               for i in range(0, len(x_test), hp.batch_size)])
# [accuracy]
accuracy = float((predictions == y_test).mean())
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size, fused_kernel=fused_kernel)
