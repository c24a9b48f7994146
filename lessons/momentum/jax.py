# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: JAX'
#     language: python
#     name: rosetta-jax
# ---

# %% [markdown]
# # Momentum: classic, Optax's, and unit gain, in JAX

# %% tags=["setup"]
import jax
import jax.numpy as jnp
import optax

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("momentum")
jax.config.update("jax_default_matmul_precision", "highest")        # float32, as the other rows compute
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NHWC")
x_train, x_test = x_train.reshape(len(x_train), -1), x_test.reshape(len(x_test), -1)
steps_per_epoch = len(x_train) // hp.batch_size


# The MLP as pure functions of a dict of weights: an optimizer lesson needs nothing of Flax.
def mlp(seed):
    """The same seed, the same initial weights: Glorot-uniform kernels, zero biases."""
    keys = jax.random.split(jax.random.key(seed))
    glorot = jax.nn.initializers.glorot_uniform()
    return {"w1": glorot(keys[0], (3072, hp.hidden_units)), "b1": jnp.zeros(hp.hidden_units),
            "w2": glorot(keys[1], (hp.hidden_units, 10)), "b2": jnp.zeros(10)}


def logits(weights, x):
    return jax.nn.relu(x @ weights["w1"] + weights["b1"]) @ weights["w2"] + weights["b2"]


def loss(weights, x, y):
    return optax.softmax_cross_entropy_with_integer_labels(logits(weights, x), y).mean()


gradient = jax.jit(jax.grad(loss))


def train(seed, optimizer_for):
    """The same batches in order; the learning rate drops by lr_drop after half of the epochs."""
    weights = mlp(seed)
    step = optimizer_for(weights)
    for epoch in range(hp.epochs):
        lr = hp.learning_rate * (hp.lr_drop if epoch >= hp.epochs // 2 else 1)
        for start in range(0, len(x_train) - hp.batch_size + 1, hp.batch_size):
            weights = step(weights, gradient(weights, x_train[start:start + hp.batch_size],
                                             y_train[start:start + hp.batch_size]), lr)
    return weights


def evaluate(weights):
    return {"loss": float(loss(weights, x_train, y_train)),                       # on the whole training set
            "accuracy": float((logits(weights, x_test).argmax(1) == y_test).mean())}


# %% tags=["variants"]
def framework_sgd(weights):
    # Optax's momentum is PyTorch's form: v = m·v + g; w -= lr·v. The learning rate comes from a schedule
    # (the step count decides it), so the step below ignores the lr it is handed.
    schedule = optax.piecewise_constant_schedule(hp.learning_rate, {hp.epochs // 2 * steps_per_epoch: hp.lr_drop})
    optimizer = optax.sgd(schedule, momentum=hp.momentum)
    state = optimizer.init(weights)

    def step(weights, grads, lr):
        nonlocal state
        updates, state = optimizer.update(grads, state)
        return optax.apply_updates(weights, updates)
    return step


def classic_sgd(weights):
    velocities = jax.tree.map(jnp.zeros_like, weights)

    def step(weights, grads, lr):
        nonlocal velocities                              # v = m·v − lr·g: the velocity keeps the old lr's steps
        velocities = jax.tree.map(lambda v, g: hp.momentum * v - lr * g, velocities, grads)
        return jax.tree.map(lambda w, v: w + v, weights, velocities)
    return step


def unit_gain_sgd(weights):
    velocities = jax.tree.map(jnp.zeros_like, weights)

    def step(weights, grads, lr):
        nonlocal velocities                              # v = m·v + (1 − m)·g; w -= lr·v
        velocities = jax.tree.map(lambda v, g: hp.momentum * v + (1 - hp.momentum) * g, velocities, grads)
        return jax.tree.map(lambda w, v: w - lr * v, weights, velocities)
    return step


def framework(seed):
    return evaluate(train(seed, framework_sgd))


def classic(seed):
    return evaluate(train(seed, classic_sgd))


def unit_gain(seed):
    return evaluate(train(seed, unit_gain_sgd))


# Once, outside the timed calls: how far each run's weights end from classic momentum's (same start, same batches).
final = {name: train(hp.seed, optimizer_for) for name, optimizer_for in
         (("framework", framework_sgd), ("classic", classic_sgd), ("unit_gain", unit_gain_sgd))}
differences = {name: max(float(abs(final[name][k] - final["classic"][k]).max()) for k in final["classic"])
               for name in ("framework", "unit_gain")}
print("largest weight difference from classic momentum:",
      ", ".join(f"{name} {value:.2e}" for name, value in differences.items()))

# %% tags=["measure"]
lesson.compare(hp, {"framework": framework, "classic": classic, "unit_gain": unit_gain},
               facts={name: {"max_weight_difference": value} for name, value in differences.items()})
