# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # Native layouts, in TensorFlow (tf.nn, no Keras)

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import tensorflow as tf

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("native_layouts")
tf.config.experimental.enable_tensor_float_32_execution(False)     # float32, not TF32 (its default on a GPU)
x_train, y_train, _, _ = cifar10.load(hp, layout="NHWC")
x_train, y_train = tf.constant(x_train), tf.constant(y_train, tf.int64)
shapes = [(3, 3, 3, 50), (3, 3, 50, 50), (3, 3, 50, 100), (3, 3, 100, 100), (100 * 8 * 8, 512), (512, 10)]
initial = [(tf.initializers.GlorotUniform(seed=hp.seed + i)(shape), tf.zeros(shape[-1]))
           for i, shape in enumerate(shapes)]                        # the same starting weights in both


def trainer(data_format, images):
    """The CNN benchmark's network (no dropout: it does not change the layout's cost) and its step,
    every op told the layout: the kernels stay (height, width, in, out) in both, only the images change."""
    weights = [(tf.Variable(kernel), tf.Variable(bias)) for kernel, bias in initial]
    variables = [v for pair in weights for v in pair]
    velocities = [tf.Variable(tf.zeros_like(v)) for v in variables]

    def conv(x, kernel, bias):
        return tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, kernel, 1, "SAME", data_format=data_format), bias,
                                         data_format=data_format))

    def pool(x):
        return tf.nn.max_pool2d(x, 2, 2, "VALID", data_format=data_format)

    def vggish(x):
        (c1, b1), (c2, b2), (c3, b3), (c4, b4), (f1, d1), (f2, d2) = weights
        x = pool(conv(conv(x, c1, b1), c2, b2))
        x = pool(conv(conv(x, c3, b3), c4, b4))
        return tf.nn.relu(tf.reshape(x, (-1, 100 * 8 * 8)) @ f1 + d1) @ f2 + d2   # flattened in the layout's order

    @tf.function                                         # the snippet's step: one graph
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, vggish(x)))
        for v, velocity, g in zip(variables, velocities, tape.gradient(loss, variables)):
            velocity.assign(hp.momentum * velocity - hp.learning_rate * g)   # classic momentum, as the CNN tab
            v.assign_add(velocity)
        return loss

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            loss = step(images[rows], y_train[rows])
        float(loss)                                      # waits for the GPU, if there is one
    return train


# %% tags=["variants"]
# TensorFlow's layout is the tensors' shape: data_format tells each op which axis holds the channels.
# NHWC is its default and its own CPU kernels' layout; with oneDNN (on by default on x86) NCHW runs too.
channels_last = trainer("NHWC", x_train)
channels_first = trainer("NCHW", tf.transpose(x_train, (0, 3, 1, 2)))   # the images moved once, outside the clock

# %% tags=["measure"]
lesson.compare(hp, {"channels_first": channels_first, "channels_last": channels_last})
