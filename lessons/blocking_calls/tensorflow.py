# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # Blocking reads in the training loop, in TensorFlow (tf.nn, no Keras)

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import tensorflow as tf

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("blocking_calls")
tf.random.set_seed(hp.seed)
x_train, y_train, _, _ = cifar10.load(hp, layout="NHWC")             # channels last: TensorFlow's CPU layout
x_train, y_train = tf.constant(x_train), tf.constant(y_train, tf.int64)
glorot = tf.initializers.GlorotUniform(seed=hp.seed)
shapes = [(3, 3, 3, 50), (3, 3, 50, 50), (3, 3, 50, 100), (3, 3, 100, 100), (100 * 8 * 8, 512), (512, 10)]
weights = [(tf.Variable(glorot(shape)), tf.Variable(tf.zeros(shape[-1]))) for shape in shapes]
variables = [v for pair in weights for v in pair]
velocities = [tf.Variable(tf.zeros_like(v)) for v in variables]


def vggish(x):                                           # the CNN benchmark's network
    (c1, b1), (c2, b2), (c3, b3), (c4, b4), (f1, d1), (f2, d2) = weights
    x = tf.nn.relu(tf.nn.max_pool2d(tf.nn.conv2d(tf.nn.relu(tf.nn.conv2d(x, c1, 1, "SAME") + b1), c2, 1, "SAME")
                                    + b2, 2, 2, "VALID"))
    x = tf.nn.dropout(x, hp.dropout_conv)
    x = tf.nn.relu(tf.nn.max_pool2d(tf.nn.conv2d(tf.nn.relu(tf.nn.conv2d(x, c3, 1, "SAME") + b3), c4, 1, "SAME")
                                    + b4, 2, 2, "VALID"))
    x = tf.nn.dropout(x, hp.dropout_conv)
    x = tf.nn.dropout(tf.nn.relu(tf.reshape(x, (tf.shape(x)[0], -1)) @ f1 + d1), hp.dropout_dense)
    return x @ f2 + d2


@tf.function                                             # the snippet's step: one graph, traced at the first call
def compiled_step(images, labels):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, vggish(images)))
    for v, velocity, g in zip(variables, velocities, tape.gradient(loss, variables)):
        velocity.assign(hp.momentum * velocity - hp.learning_rate * g)   # classic momentum, as the CNN tab
        v.assign_add(velocity)
    return loss


def train_step(i):
    rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
    return compiled_step(x_train[rows], y_train[rows])  # a tensor


# %% tags=["variants"]
# On a CPU a tf.function call returns when its graph has run: the loss is there already, and a
# read has nothing to wait for, so this pair is a control, as PyTorch's. On a GPU the kernels are
# queued on the device's stream, and float() (like .numpy()) waits for them.
def read_every_step():
    running = 0.0
    for i in range(hp.batches):
        running += float(train_step(i))                  # copies the loss to Python: waits on a GPU
    return {"loss": running / hp.batches}


def read_at_end():
    running = tf.zeros(())
    for i in range(hp.batches):
        running += train_step(i)                         # summed where it is computed, nothing waits
    return {"loss": float(running) / hp.batches}         # the one read, at the end


# %% tags=["measure"]
lesson.compare(hp, {"read_every_step": read_every_step, "read_at_end": read_at_end})
