# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: JAX'
#     language: python
#     name: rosetta-jax
# ---

# %% [markdown]
# # A softmax twice, in JAX (Flax NNX and Optax)

# %% tags=["setup"]
import jax
import optax
from flax import nnx

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("softmax_twice")
jax.config.update("jax_default_matmul_precision", "highest")        # float32, as the other rows compute
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NHWC")
# An MLP reads each image as one vector of 32 × 32 × 3 = 3072 values.
x_train, x_test = x_train.reshape(len(x_train), -1), x_test.reshape(len(x_test), -1)


class MLP(nnx.Module):
    def __init__(self, softmax_out, rngs):
        glorot = nnx.initializers.glorot_uniform()                  # Glorot-uniform, zero biases, as the CNN
        self.hidden1 = nnx.Linear(3072, hp.hidden, kernel_init=glorot, rngs=rngs)
        self.hidden2 = nnx.Linear(hp.hidden, hp.hidden, kernel_init=glorot, rngs=rngs)
        self.out = nnx.Linear(hp.hidden, 10, kernel_init=glorot, rngs=rngs)
        self.softmax_out = softmax_out

    def __call__(self, x):
        x = self.out(nnx.relu(self.hidden2(nnx.relu(self.hidden1(x)))))
        return nnx.softmax(x) if self.softmax_out else x


@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):                                             # log-softmax inside: it expects logits
        return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()
    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


@nnx.jit
def predict(model, x):                                              # a softmax keeps the largest output largest
    return model(x).argmax(axis=1)


def train_and_test(softmax_out, seed):
    params_key, shuffle_key = jax.random.split(jax.random.key(seed))   # same start and batch order in both
    model = MLP(softmax_out, nnx.Rngs(params=params_key))
    optimizer = nnx.Optimizer(model, optax.sgd(hp.learning_rate, momentum=hp.momentum), wrt=nnx.Param)
    n_batches, total = len(x_train) // hp.batch_size, 0.0
    for _ in range(hp.epochs):
        shuffle_key, epoch_key = jax.random.split(shuffle_key)
        order = jax.random.permutation(epoch_key, len(x_train))
        for i in range(n_batches):
            rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
            total += float(train_step(model, optimizer, x_train[rows], y_train[rows]))
    return {"accuracy": float((predict(model, x_test) == y_test).mean()), "loss": total / n_batches}


# %% tags=["variants"]
def softmax_once(seed):
    return train_and_test(False, seed)                              # logits out: the loss applies the softmax


def softmax_twice(seed):
    return train_and_test(True, seed)               # the mistake: probabilities out, softmaxed again in the loss


# %% tags=["measure"]
lesson.compare(hp, {"softmax_once": softmax_once, "softmax_twice": softmax_twice})
