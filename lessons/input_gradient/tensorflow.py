# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # No gradient to the input, in TensorFlow (tf.nn, no Keras)

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import tensorflow as tf

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("input_gradient")
tf.random.set_seed(hp.seed)
x_train, y_train, _, _ = cifar10.load(hp, layout="NHWC")
x_train, y_train = tf.constant(x_train), tf.constant(y_train, tf.int64)
glorot = tf.initializers.GlorotUniform(seed=hp.seed)
shapes = [(3, 3, 3, 50), (3, 3, 50, 50), (3, 3, 50, 100), (3, 3, 100, 100), (100 * 8 * 8, 512), (512, 10)]
weights = [(tf.Variable(glorot(shape)), tf.Variable(tf.zeros(shape[-1]))) for shape in shapes]
variables = [v for pair in weights for v in pair]
velocities = [tf.Variable(tf.zeros_like(v)) for v in variables]


def vggish(x):                                           # the CNN benchmark's network, without dropout
    (c1, b1), (c2, b2), (c3, b3), (c4, b4), (f1, d1), (f2, d2) = weights
    x = tf.nn.relu(tf.nn.max_pool2d(tf.nn.conv2d(tf.nn.relu(tf.nn.conv2d(x, c1, 1, "SAME") + b1), c2, 1, "SAME")
                                    + b2, 2, 2, "VALID"))
    x = tf.nn.relu(tf.nn.max_pool2d(tf.nn.conv2d(tf.nn.relu(tf.nn.conv2d(x, c3, 1, "SAME") + b3), c4, 1, "SAME")
                                    + b4, 2, 2, "VALID"))
    return tf.nn.relu(tf.reshape(x, (tf.shape(x)[0], -1)) @ f1 + d1) @ f2 + d2


def train_step(with_input_gradient):
    @tf.function
    def step(images, labels):
        with tf.GradientTape() as tape:
            if with_input_gradient:
                tape.watch(images)                       # a tape records only variables unless told otherwise
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, vggish(images)))
        gradients = tape.gradient(loss, variables + ([images] if with_input_gradient else []))
        for v, velocity, g in zip(variables, velocities, gradients):
            velocity.assign(hp.momentum * velocity - hp.learning_rate * g)   # classic momentum, as the CNN tab
            v.assign_add(velocity)
        # Returned, so that the graph keeps it: a tf.function prunes what feeds neither an output nor a variable.
        return (loss, gradients[-1]) if with_input_gradient else (loss,)
    return step


def trainer(step):
    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            loss, *_ = step(x_train[rows], y_train[rows])
        loss.numpy()                                     # waits for the GPU, if there is one
    return train


# %% tags=["variants"]
no_input_gradient = trainer(train_step(with_input_gradient=False))   # the weights' gradients only
input_gradient = trainer(train_step(with_input_gradient=True))       # and the images' gradient, asked for

# %% tags=["measure"]
lesson.compare(hp, {"no_input_gradient": no_input_gradient, "input_gradient": input_gradient})
