# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # Gradients off for inference, in TensorFlow (Keras 3)

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import keras
import tensorflow as tf
from keras import layers

from rosetta import lesson
from rosetta.data import cifar10

tf.config.set_visible_devices([], "GPU")             # the lesson measures host memory: CPU, as in every tab
hp = lesson.settings("gradients_off")
keras.utils.set_random_seed(hp.seed)
keras.config.set_image_data_format("channels_last")  # TensorFlow's CPU kernels run channels-last
_, _, x_test, _ = cifar10.load(hp, layout="NHWC")
batches = [tf.constant(x_test[i:i + hp.batch_size]) for i in range(0, len(x_test), hp.batch_size)]

# The CNN benchmark's network; its dropout is left out (in inference mode it is the identity).
model = keras.Sequential([
    keras.Input(shape=x_test.shape[1:]),
    layers.Conv2D(50, 3, padding="same", activation="relu"),
    layers.Conv2D(50, 3, padding="same"), layers.MaxPooling2D(2), layers.Activation("relu"),
    layers.Conv2D(100, 3, padding="same", activation="relu"),
    layers.Conv2D(100, 3, padding="same"), layers.MaxPooling2D(2), layers.Activation("relu"),
    layers.Flatten(),
    layers.Dense(512, activation="relu"),
    layers.Dense(10),
])


# %% tags=["variants"]
def predict():
    # TensorFlow allocates from its own pool, which keeps what it once held: the resident-memory count
    # cannot see a call's peak, so report the pool's own (it replaces the helper's measurement).
    tf.config.experimental.reset_memory_stats("CPU:0")
    before = tf.config.experimental.get_memory_info("CPU:0")["current"]
    # All the test logits, kept until the last batch is done, as code that goes on to an accuracy or a
    # test loss keeps them. Inside a tape, the tape holds on to every batch's saved tensors.
    logits = tf.concat([model(batch, training=False) for batch in batches], axis=0)
    del logits                                   # (what comes next is not part of the lesson)
    return {"peak_memory_mb": (tf.config.experimental.get_memory_info("CPU:0")["peak"] - before) / 2**20}


def gradients_off():
    return predict()                             # Keras records nothing outside a GradientTape: off by default


def gradients_on():
    with tf.GradientTape():                      # e.g. predicting inside a custom training step's tape:
        return predict()                         # it keeps every layer's inputs of every batch until it closes


# %% tags=["measure"]
lesson.compare(hp, {"gradients_off": gradients_off, "gradients_on": gradients_on}, memory=True)
