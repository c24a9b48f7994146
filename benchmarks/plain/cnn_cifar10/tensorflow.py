"""Plain-script twin of snippets/cnn_cifar10/tensorflow.py: the same tf.nn CNN (no Keras), its training loop timed."""
import json
import math
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf

from rosetta import settings
from rosetta.data import cifar10

hp = settings("cnn_cifar10")
rng = tf.random.Generator.from_seed(hp.seed)

x_train, y_train, _, _ = cifar10.load(hp, layout="NHWC")
batches = tf.data.Dataset.from_tensor_slices((x_train, y_train))
if getattr(hp, "shuffle", True):                  # a new order every epoch; the equivalence checks turn it off
    batches = batches.shuffle(len(x_train), seed=hp.seed)
batches = batches.batch(hp.batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def layer(*shape):                                # Glorot-uniform kernel, zero bias
    receptive_field = math.prod(shape[:-2])
    limit = math.sqrt(6 / (receptive_field * (shape[-2] + shape[-1])))
    return tf.Variable(rng.uniform(shape, -limit, limit)), tf.Variable(tf.zeros(shape[-1]))


def conv(x, kernel, bias):
    return tf.nn.bias_add(tf.nn.conv2d(x, kernel, strides=1, padding="SAME"), bias)


def max_pool(x):
    return tf.nn.max_pool2d(x, ksize=2, strides=2, padding="VALID")


def dropout(x, rate):
    return tf.nn.experimental.stateless_dropout(x, rate, seed=rng.make_seeds()[:, 0])


class VGGish(tf.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = layer(3, 3, 3, 50), layer(3, 3, 50, 50)
        self.conv3, self.conv4 = layer(3, 3, 50, 100), layer(3, 3, 100, 100)
        self.fc1, self.fc2 = layer(100 * 8 * 8, 512), layer(512, 10)

    @tf.function
    def __call__(self, x):                        # training mode: dropout on
        x = tf.nn.relu(conv(x, *self.conv1))
        x = dropout(tf.nn.relu(max_pool(conv(x, *self.conv2))), hp.dropout_conv)
        x = tf.nn.relu(conv(x, *self.conv3))
        x = dropout(tf.nn.relu(max_pool(conv(x, *self.conv4))), hp.dropout_conv)
        x = dropout(tf.nn.relu(tf.reshape(x, (-1, 100 * 8 * 8)) @ self.fc1[0] + self.fc1[1]), hp.dropout_dense)
        return x @ self.fc2[0] + self.fc2[1]


model = VGGish()
velocities = [tf.Variable(tf.zeros_like(w), trainable=False) for w in model.trainable_variables]


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=model(x)))
    for w, v, g in zip(model.trainable_variables, velocities, tape.gradient(loss, model.trainable_variables)):
        v.assign(hp.momentum * v - hp.learning_rate * g)   # classic momentum, Keras' form
        w.assign_add(v)
    return loss


n_batches = len(x_train) // hp.batch_size
started = time.perf_counter()
for _ in range(hp.epochs):
    for x, y in batches:
        loss = train_step(x, y)
float(loss)                                       # waits for the last step (a GPU runs asynchronously)
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": hp.epochs * n_batches * hp.batch_size}))
