# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # Keep the data in the framework's arrays, in TensorFlow (tf.nn, no Keras)

# %% tags=["setup"]
import tensorflow as tf

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("framework_arrays")
tf.random.set_seed(hp.seed)
x_numpy, y_numpy, _, _ = cifar10.load(hp, layout="NHWC")
n_batches = len(x_numpy) // hp.batch_size
glorot = tf.initializers.GlorotUniform(seed=hp.seed)
variables = [tf.Variable(glorot((3072, hp.hidden))), tf.Variable(tf.zeros(hp.hidden)),
             tf.Variable(glorot((hp.hidden, 10))), tf.Variable(tf.zeros(10))]
velocities = [tf.Variable(tf.zeros_like(v)) for v in variables]


@tf.function
def train_step(x, y):                                    # an MLP 3072-512-10: cheap steps, so feeding them shows
    with tf.GradientTape() as tape:
        hidden = tf.nn.relu(tf.reshape(x, (-1, 3072)) @ variables[0] + variables[1])
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, hidden @ variables[2] + variables[3]))
    for v, velocity, g in zip(variables, velocities, tape.gradient(loss, variables)):
        velocity.assign(hp.momentum * velocity - hp.learning_rate * g)   # classic momentum, as the CNN tab
        v.assign_add(velocity)
    return loss


# %% tags=["variants"]
x_train, y_train = tf.constant(x_numpy), tf.constant(y_numpy, tf.int64)   # converted once


def framework_arrays():
    for i in range(n_batches):
        rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
        loss = train_step(x_train[rows], y_train[rows])
    loss.numpy()                                         # waits for the GPU, if there is one


def converted_per_step():
    for i in range(n_batches):
        rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
        # A tf.function called with NumPy arrays converts them to tensors (a copy) at every call.
        loss = train_step(x_numpy[rows], y_numpy[rows].astype("int64"))
    loss.numpy()


# %% tags=["measure"]
lesson.compare(hp, {"framework_arrays": framework_arrays, "converted_per_step": converted_per_step})
