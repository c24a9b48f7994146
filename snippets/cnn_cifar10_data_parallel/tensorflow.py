# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # Data-parallel CNN on CIFAR-10 with TensorFlow (no Keras)
# `tf.distribute.MultiWorkerMirroredStrategy`: one process per worker, named in `TF_CONFIG`; variables
# made in its scope are mirrored on every worker, `strategy.run` runs a function on this worker's
# replica, and `strategy.reduce` sums what the replicas return over all the workers (gRPC and
# collective ops on a CPU, NCCL on GPUs).

# %% tags=["setup"]
# [imports]
import json
import math
import os

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf

from rosetta import report, settings
from rosetta.data import cifar10

# [workers] TF_CONFIG lists every worker's address and names this one's index; the strategy must be
# made before any other TensorFlow operation.
strategy = tf.distribute.MultiWorkerMirroredStrategy()
rank, workers = json.loads(os.environ["TF_CONFIG"])["task"]["index"], strategy.num_replicas_in_sync
# [seeds] The same seeds in every worker: the same batch order; the weights are worker 0's, copied.
hp = settings("cnn_cifar10_data_parallel")
rng = np.random.default_rng(hp.seed)
with strategy.scope():
    weights_rng = tf.random.Generator.from_seed(hp.seed)
# [device]
on_gpu = bool(tf.config.list_physical_devices("GPU"))
tf.config.experimental.enable_tensor_float_32_execution(False)   # float32, not TF32
print(f"TensorFlow {tf.__version__}, worker {rank} of {workers} on {'GPU' if on_gpu else 'CPU'}, "
      f"profile {hp.profile}")

# %% tags=["data"]
# Every worker holds the data set; each trains on its share of every batch.
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NHWC")
share = hp.batch_size // workers
print("train", x_train.shape, "test", x_test.shape, f"{share} images a step per worker")


# %% tags=["model"]
# [network]
def glorot_uniform(shape):
    receptive_field = math.prod(shape[:-2])
    fan_in, fan_out = receptive_field * shape[-2], receptive_field * shape[-1]
    limit = math.sqrt(6 / (fan_in + fan_out))
    return tf.Variable(weights_rng.uniform(shape, -limit, limit), name="kernel")


def layer(*shape):
    return glorot_uniform(shape), tf.Variable(tf.zeros(shape[-1]), name="bias")


def conv(x, kernel, bias):
    return tf.nn.bias_add(tf.nn.conv2d(x, kernel, strides=1, padding="SAME"), bias)


def max_pool(x):
    return tf.nn.max_pool2d(x, ksize=2, strides=2, padding="VALID")


def dropout(x, rate, training):
    return tf.nn.experimental.stateless_dropout(x, rate, seed=weights_rng.make_seeds()[:, 0]) if training else x


class VGGish(tf.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.conv1 = layer(3, 3, 3, 50)
        self.conv2 = layer(3, 3, 50, 50)
        self.conv3 = layer(3, 3, 50, 100)
        self.conv4 = layer(3, 3, 100, 100)
        self.fc1 = layer(100 * 8 * 8, 512)
        self.fc2 = layer(512, n_classes)

    def __call__(self, x, training=False):
        x = tf.nn.relu(conv(x, *self.conv1))
        x = tf.nn.relu(max_pool(conv(x, *self.conv2)))
        x = dropout(x, hp.dropout_conv, training)
        x = tf.nn.relu(conv(x, *self.conv3))
        x = tf.nn.relu(max_pool(conv(x, *self.conv4)))
        x = dropout(x, hp.dropout_conv, training)
        x = tf.reshape(x, (-1, 100 * 8 * 8))
        x = tf.nn.relu(x @ self.fc1[0] + self.fc1[1])
        x = dropout(x, hp.dropout_dense, training)
        return x @ self.fc2[0] + self.fc2[1]


# Variables made in the strategy's scope are mirrored: one copy per worker, all starting as worker 0's.
with strategy.scope():
    model = VGGish()
    # [optimizer] Classic momentum by hand, as in the single-device tab.
    velocities = [tf.Variable(tf.zeros_like(w), trainable=False) for w in model.trainable_variables]


# [loss] This worker's part of the batch mean: its share's summed loss over the whole batch's size.
def share_of_loss(logits, labels):
    return tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)) / hp.batch_size


@tf.function
def train_step(x, y):
    def on_this_replica(x, y):
        with tf.GradientTape() as tape:
            loss = share_of_loss(model(x, training=True), y)
        gradients = tape.gradient(loss, model.trainable_variables)
        # Summed over the workers: the whole batch's mean loss and its gradients, the same on every worker.
        return tf.distribute.get_replica_context().all_reduce("SUM", [loss, *gradients])

    # This worker's one replica's results, to update the mirrored variables here (each worker does the same).
    loss, *gradients = strategy.experimental_local_results(strategy.run(on_this_replica, args=(x, y)))[0]
    for w, v, g in zip(model.trainable_variables, velocities, gradients):
        v.assign(hp.momentum * v - hp.learning_rate * g)
        w.assign_add(v)
    return loss


print(sum(w.shape.num_elements() for w in model.trainable_variables), "parameters in every worker")

# %% tags=["train"]
# [batches]
n_batches = len(x_train) // hp.batch_size
for epoch in range(hp.epochs):
    order = rng.permutation(len(x_train)) if hp.shuffle else np.arange(len(x_train))   # the same in every worker
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size][rank::workers]   # this worker's share
        # [training-step]
        loss = train_step(x_train[rows], y_train[rows])
    # [progress]
    print(f"epoch {epoch + 1}: last batch loss {float(loss):.3f}")


# %% tags=["infer"]
# [predictions] Each worker predicts its share of the test set.
@tf.function
def correct_in(x, y):
    def on_this_replica(x, y):
        predictions = tf.concat([tf.argmax(model(x[i:i + hp.batch_size]), axis=1, output_type=tf.int32)
                                 for i in range(0, x.shape[0], hp.batch_size)], axis=0)
        return tf.reduce_sum(tf.cast(predictions == y, tf.int32))
    return strategy.reduce("SUM", strategy.run(on_this_replica, args=(x, y)), axis=None)


# [accuracy] The correct predictions, summed over the workers.
accuracy = int(correct_in(x_test[rank::workers], y_test[rank::workers])) / len(y_test)
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size)
