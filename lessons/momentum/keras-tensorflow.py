# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # Momentum: classic, PyTorch's, and unit gain, in TensorFlow (Keras 3)

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import keras
import numpy as np
import tensorflow as tf
from keras import layers

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("momentum")
tf.get_logger().setLevel("ERROR")                      # every run builds a fresh model: no warnings about retracing
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NHWC")
x_train, x_test = x_train.reshape(len(x_train), -1), x_test.reshape(len(x_test), -1)   # 3072 values each
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def mlp(seed):
    keras.utils.set_random_seed(seed)                    # the same seed, the same initial weights
    return keras.Sequential([keras.Input(shape=(3072,)),  # Glorot-uniform and zero biases: Keras' defaults
                             layers.Dense(hp.hidden_units, activation="relu"), layers.Dense(10)])


def train(seed, optimizer_for):
    """The same batches in order; the learning rate drops by lr_drop after half of the epochs."""
    model = mlp(seed)
    step = optimizer_for(model.trainable_variables)

    @tf.function                                         # one compiled training step per run
    def train_step(x, y, lr):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        step(tape.gradient(loss, model.trainable_variables), lr)

    for epoch in range(hp.epochs):
        lr = tf.constant(hp.learning_rate * (hp.lr_drop if epoch >= hp.epochs // 2 else 1))   # a tensor: no retracing
        for start in range(0, len(x_train) - hp.batch_size + 1, hp.batch_size):
            train_step(x_train[start:start + hp.batch_size], y_train[start:start + hp.batch_size], lr)
    return model


def evaluate(model):
    return {"loss": float(loss_fn(y_train, model(x_train))),                   # on the whole training set
            "accuracy": float(np.mean(model(x_test).numpy().argmax(1) == y_test))}


# %% tags=["variants"]
def framework_sgd(weights):
    optimizer = keras.optimizers.SGD(learning_rate=hp.learning_rate, momentum=hp.momentum)
    optimizer.build(weights)                             # its velocities exist before the step is compiled

    def step(gradients, lr):
        optimizer.learning_rate.assign(lr)              # what a LearningRateSchedule would do
        optimizer.apply_gradients(zip(gradients, weights))   # Keras' momentum is the classic one
    return step


def classic_sgd(weights):
    velocities = [tf.Variable(tf.zeros_like(w)) for w in weights]

    def step(gradients, lr):
        for w, v, g in zip(weights, velocities, gradients):
            v.assign(hp.momentum * v - lr * g)           # v = m·v − lr·g: the velocity keeps the old lr's steps
            w.assign_add(v)
    return step


def unit_gain_sgd(weights):
    velocities = [tf.Variable(tf.zeros_like(w)) for w in weights]

    def step(gradients, lr):
        for w, v, g in zip(weights, velocities, gradients):
            v.assign(hp.momentum * v + (1 - hp.momentum) * g)   # v = m·v + (1 − m)·g
            w.assign_sub(lr * v)
    return step


def framework(seed):
    return evaluate(train(seed, framework_sgd))


def classic(seed):
    return evaluate(train(seed, classic_sgd))


def unit_gain(seed):
    return evaluate(train(seed, unit_gain_sgd))


# Once, outside the timed calls: how far each run's weights end from classic momentum's (same start, same batches).
final = {name: train(hp.seed, optimizer_for).get_weights()
         for name, optimizer_for in (("framework", framework_sgd), ("classic", classic_sgd),
                                     ("unit_gain", unit_gain_sgd))}
differences = {name: max(float(np.abs(w - c).max()) for w, c in zip(final[name], final["classic"]))
               for name in ("framework", "unit_gain")}
print("largest weight difference from classic momentum:",
      ", ".join(f"{name} {value:.2e}" for name, value in differences.items()))

# %% tags=["measure"]
lesson.compare(hp, {"framework": framework, "classic": classic, "unit_gain": unit_gain},
               facts={name: {"max_weight_difference": value} for name, value in differences.items()})
