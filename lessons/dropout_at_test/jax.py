# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: JAX'
#     language: python
#     name: rosetta-jax
# ---

# %% [markdown]
# # Dropout at test time, in JAX (Flax NNX)

# %% tags=["setup"]
import jax
import optax
from flax import nnx

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("dropout_at_test")
jax.config.update("jax_default_matmul_precision", "highest")        # float32, as the other rows compute
params_key, dropout_key, shuffle_key = jax.random.split(jax.random.key(hp.seed), 3)
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NHWC")
# An MLP reads each image as one vector of 32 × 32 × 3 = 3072 values.
x_train, x_test = x_train.reshape(len(x_train), -1), x_test.reshape(len(x_test), -1)


class MLP(nnx.Module):
    def __init__(self, rngs):
        glorot = nnx.initializers.glorot_uniform()                  # Glorot-uniform, zero biases, as the CNN
        self.hidden1 = nnx.Linear(3072, hp.hidden, kernel_init=glorot, rngs=rngs)
        self.hidden2 = nnx.Linear(hp.hidden, hp.hidden, kernel_init=glorot, rngs=rngs)
        self.out = nnx.Linear(hp.hidden, 10, kernel_init=glorot, rngs=rngs)
        self.dropout = nnx.Dropout(hp.dropout, rngs=rngs)           # masks from the "dropout" key stream

    def __call__(self, x):
        x = self.dropout(nnx.relu(self.hidden1(x)))
        x = self.dropout(nnx.relu(self.hidden2(x)))
        return self.out(x)


model = MLP(nnx.Rngs(params=params_key, dropout=dropout_key))
optimizer = nnx.Optimizer(model, optax.sgd(hp.learning_rate, momentum=hp.momentum), wrt=nnx.Param)


@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()
    optimizer.update(model, nnx.grad(loss_fn)(model))


model.train()                                                       # dropout on while training
for _ in range(hp.epochs):
    shuffle_key, epoch_key = jax.random.split(shuffle_key)
    order = jax.random.permutation(epoch_key, len(x_train))
    for i in range(len(x_train) // hp.batch_size):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        train_step(model, optimizer, x_train[rows], y_train[rows])
# The model is still in training mode: the loop above left it there.


# %% tags=["variants"]
@nnx.jit
def predict(model, x):
    return model(x).argmax(axis=1)


def accuracy():
    return float((predict(model, x_test) == y_test).mean())      # predict records nothing: no gradient asked


def dropout_off():
    model.eval()                                                    # inference mode: every nnx.Dropout is the identity
    return {"accuracy": accuracy()}


def dropout_on(seed):
    nnx.reseed(model, dropout=seed)                                 # this round's dropout masks
    model.train()                                                   # the mistake: no model.eval() after training
    return {"accuracy": accuracy()}


# %% tags=["measure"]
lesson.compare(hp, {"dropout_off": dropout_off, "dropout_on": dropout_on})
