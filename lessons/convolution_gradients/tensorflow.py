# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # A convolution and its two gradients, in TensorFlow

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import tensorflow as tf

from rosetta import lesson

hp = lesson.settings("convolution_gradients")
tf.config.experimental.enable_tensor_float_32_execution(False)     # float32, not TF32 (its default on a GPU)
rng = tf.random.Generator.from_seed(hp.seed)
shape = (hp.batch_size, hp.size, hp.size, hp.channels)              # channels last: TensorFlow's CPU layout
images = rng.normal(shape)
kernel = rng.normal((3, 3, hp.channels, hp.channels))               # (height, width, in, out)
output_gradient = rng.normal(shape)                                 # what the layer above hands back


def conv(x, w):
    return tf.nn.conv2d(x, w, strides=1, padding="SAME")


# %% tags=["variants"]
# Each part traced into a graph of its own. The gradients come from a tape given the output's gradient; the
# forward convolution it records feeds nothing the function returns, so the graph leaves it out.
@tf.function
def forward(x, w):
    return conv(x, w)


@tf.function
def input_gradient(x, w, g):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = conv(x, w)
    return tape.gradient(y, x, output_gradients=g)


@tf.function
def kernel_gradient(x, w, g):
    with tf.GradientTape() as tape:
        tape.watch(w)
        y = conv(x, w)
    return tape.gradient(y, w, output_gradients=g)


parts = {"forward": lambda: forward(images, kernel),
         "input_gradient": lambda: input_gradient(images, kernel, output_gradient),
         "kernel_gradient": lambda: kernel_gradient(images, kernel, output_gradient)}


def repeated(part):
    def call():
        for _ in range(hp.calls):
            out = part()
        float(tf.reduce_sum(out))                                   # waits for the GPU, if there is one
    return call


print({name: tuple(part().shape) for name, part in parts.items()})  # traces each part once

# %% tags=["measure"]
lesson.compare(hp, {name: repeated(part) for name, part in parts.items()})
