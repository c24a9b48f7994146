# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # The CNN's training step, as written and tuned, in TensorFlow (tf.nn, no Keras)
# The snippet traces its step into a graph with `tf.function`. Beside it: the same step compiled
# by XLA (`tf.function(jit_compile=True)`), and run eagerly, op by op (what the graph buys).

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import time

import tensorflow as tf

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("tuned_cnn")
tf.config.experimental.enable_tensor_float_32_execution(False)     # float32, not TF32 (its default on a GPU)
x_train, y_train, _, _ = cifar10.load(hp, layout="NHWC")             # channels last: TensorFlow's CPU layout
x_train, y_train = tf.constant(x_train), tf.constant(y_train, tf.int64)
shapes = [(3, 3, 3, 50), (3, 3, 50, 50), (3, 3, 50, 100), (3, 3, 100, 100), (100 * 8 * 8, 512), (512, 10)]
initial = [(tf.initializers.GlorotUniform(seed=hp.seed + i)(shape), tf.zeros(shape[-1]))
           for i, shape in enumerate(shapes)]                        # the same starting weights for every variant


def dropout(x, rate, seeds):
    return tf.nn.experimental.stateless_dropout(x, rate, seed=seeds)   # as the snippet: a seed per step


def trainer(compile_with):
    """The snippet's network and step on a fresh copy of the weights; `compile_with` wraps the step."""
    weights = [(tf.Variable(kernel), tf.Variable(bias)) for kernel, bias in initial]
    variables = [v for pair in weights for v in pair]
    velocities = [tf.Variable(tf.zeros_like(v)) for v in variables]
    rng = tf.random.Generator.from_seed(hp.seed)

    def vggish(x):
        (c1, b1), (c2, b2), (c3, b3), (c4, b4), (f1, d1), (f2, d2) = weights
        x = tf.nn.relu(tf.nn.conv2d(x, c1, 1, "SAME") + b1)
        x = tf.nn.relu(tf.nn.max_pool2d(tf.nn.conv2d(x, c2, 1, "SAME") + b2, 2, 2, "VALID"))
        x = dropout(x, hp.dropout_conv, rng.make_seeds()[:, 0])
        x = tf.nn.relu(tf.nn.conv2d(x, c3, 1, "SAME") + b3)
        x = tf.nn.relu(tf.nn.max_pool2d(tf.nn.conv2d(x, c4, 1, "SAME") + b4, 2, 2, "VALID"))
        x = dropout(x, hp.dropout_conv, rng.make_seeds()[:, 0])
        x = dropout(tf.nn.relu(tf.reshape(x, (-1, 100 * 8 * 8)) @ f1 + d1), hp.dropout_dense, rng.make_seeds()[:, 0])
        return x @ f2 + d2

    def step(images, labels):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, vggish(images)))
        for v, velocity, g in zip(variables, velocities, tape.gradient(loss, variables)):
            velocity.assign(hp.momentum * velocity - hp.learning_rate * g)   # classic momentum, as the snippet
            v.assign_add(velocity)
        return loss

    step = compile_with(step)

    def train():
        order = tf.random.shuffle(tf.range(len(x_train)), seed=hp.seed)   # the snippet shuffles every epoch
        for i in range(hp.batches):
            rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
            loss = step(tf.gather(x_train, rows), tf.gather(y_train, rows))
        float(loss)                                      # waits for the GPU, if there is one
    return train


# %% tags=["variants"]
variants = {
    "as_written": trainer(tf.function),                          # traced into one graph of TensorFlow's kernels
    "compiled": trainer(tf.function(jit_compile=True)),          # the graph compiled by XLA into fused code
    "uncompiled": trainer(lambda step: step),                    # eager: each op dispatched from Python
}

# %% tags=["measure"]
first_call = {}                                          # the first call (tracing, compiling) timed once
for name, train in variants.items():
    started = time.perf_counter()
    train()
    first_call[name] = {"first_call_seconds": time.perf_counter() - started}
lesson.compare(hp, variants, facts=first_call)
