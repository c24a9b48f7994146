# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # Subnormal numbers in a matrix product, in TensorFlow

# %% tags=["setup"]
import numpy as np
import tensorflow as tf

from rosetta import lesson

hp = lesson.settings("subnormal_numbers")
tf.random.set_seed(hp.seed)
rows = hp.batch_size * hp.max_length                                 # every time step of every sequence
states = tf.random.normal((rows, hp.hidden_size))
gate_gradients = tf.random.normal((rows, 3 * hp.hidden_size))
# Scaled on the host: a TensorFlow kernel would flush the result to zero itself.
tiny = tf.constant(gate_gradients.numpy() * np.float32(hp.scale))   # below 1.2e-38: subnormal float32
print("smallest normal float32", np.finfo(np.float32).tiny, "| largest scaled value", np.abs(tiny.numpy()).max())


# %% tags=["variants"]
# The weight gradient of the recurrent kernel: the states transposed times the gates' gradients.
# TensorFlow's executor sets flush-to-zero on the threads that run its kernels.
@tf.function
def weight_gradient(gradients):
    return tf.matmul(states, gradients, transpose_a=True)


def product(gradients):
    def call():
        for _ in range(hp.calls):
            out = weight_gradient(gradients)
        out.numpy()                                                  # waits for the GPU, if there is one
    return call


# %% tags=["measure"]
lesson.compare(hp, {"normal": product(gate_gradients), "subnormal": product(tiny)})
