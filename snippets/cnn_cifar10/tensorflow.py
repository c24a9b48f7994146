# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # CNN on CIFAR-10 with TensorFlow (no Keras)
# The same network from TensorFlow's own pieces: `tf.Variable`s in a `tf.Module`, `tf.nn` ops,
# gradients from a `tf.GradientTape` and the update written out, in one `tf.function`. What the
# Keras tab's layers, `compile` and `fit` do for you, done by hand.

# %% tags=["setup"]
# [imports]
import math
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import tensorflow as tf

from rosetta import report, settings
from rosetta.data import cifar10

# [seeds]
hp = settings("cnn_cifar10")
# One seeded generator for the initial weights and the dropout masks (TensorFlow's recommended
# random numbers: its state is a tf.Variable, so it also advances inside a tf.function).
rng = tf.random.Generator.from_seed(hp.seed)
# [device]
on_gpu = bool(tf.config.list_physical_devices("GPU"))
tf.config.experimental.enable_tensor_float_32_execution(False)   # float32, not TF32 (its default on a GPU)
math_mode = "float32 (TF32 off), cuDNN autotune on" if on_gpu else "float32"   # autotune: TensorFlow's default
print(f"TensorFlow {tf.__version__} on {'GPU' if on_gpu else 'CPU'}, {math_mode}, channels last, profile {hp.profile}")

# %% tags=["data"]
# Channels last (N, 32, 32, 3): TensorFlow's native layout, the only one its own CPU kernels run. On a
# GPU, its graph optimizer (grappler) chooses the convolutions' layout inside a tf.function by itself.
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NHWC")
batches = tf.data.Dataset.from_tensor_slices((x_train, y_train))
if hp.shuffle:
    batches = batches.shuffle(len(x_train), seed=hp.seed)   # a new order every epoch
batches = batches.batch(hp.batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)   # full batches only
test_batches = tf.data.Dataset.from_tensor_slices(x_test).batch(hp.batch_size)
print("train", x_train.shape, "test", x_test.shape)


# %% tags=["model"]
# [network]
def glorot_uniform(shape):
    """A kernel variable drawn from U(-a, a), a = sqrt(6 / (fan_in + fan_out)): Keras' default."""
    receptive_field = math.prod(shape[:-2])           # 3 x 3 for a conv kernel (h, w, in, out), 1 for a dense one
    fan_in, fan_out = receptive_field * shape[-2], receptive_field * shape[-1]
    limit = math.sqrt(6 / (fan_in + fan_out))
    return tf.Variable(rng.uniform(shape, -limit, limit), name="kernel")


def layer(*shape):
    return glorot_uniform(shape), tf.Variable(tf.zeros(shape[-1]), name="bias")


def conv(x, kernel, bias):                            # kernel (h, w, in, out); "SAME": zero padding 1
    return tf.nn.bias_add(tf.nn.conv2d(x, kernel, strides=1, padding="SAME"), bias)


def max_pool(x):
    return tf.nn.max_pool2d(x, ksize=2, strides=2, padding="VALID")


def dropout(x, rate, training):
    # As Keras' Dropout does: a stateless op, its seed drawn from the generator (a new mask every step).
    return tf.nn.experimental.stateless_dropout(x, rate, seed=rng.make_seeds()[:, 0]) if training else x


class VGGish(tf.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.conv1 = layer(3, 3, 3, 50)
        self.conv2 = layer(3, 3, 50, 50)
        self.conv3 = layer(3, 3, 50, 100)
        self.conv4 = layer(3, 3, 100, 100)
        self.fc1 = layer(100 * 8 * 8, 512)
        self.fc2 = layer(512, n_classes)

    @tf.function                                      # one graph per value of training, whatever calls it
    def __call__(self, x, training=False):
        x = tf.nn.relu(conv(x, *self.conv1))
        x = tf.nn.relu(max_pool(conv(x, *self.conv2)))      # ReLU after pooling: same result, 4x cheaper
        x = dropout(x, hp.dropout_conv, training)
        x = tf.nn.relu(conv(x, *self.conv3))
        x = tf.nn.relu(max_pool(conv(x, *self.conv4)))
        x = dropout(x, hp.dropout_conv, training)
        x = tf.reshape(x, (-1, 100 * 8 * 8))               # channels last flattens (h, w, c)
        x = tf.nn.relu(x @ self.fc1[0] + self.fc1[1])
        x = dropout(x, hp.dropout_dense, training)
        return x @ self.fc2[0] + self.fc2[1]               # logits: softmax lives in the loss


# [loss]
def loss_fn(logits, labels):                          # softmax inside, on logits; mean over the batch
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))


# [network]
model = VGGish()
# [optimizer] TensorFlow 2's optimizers are Keras' (tf.keras.optimizers; TF 1's tf.compat.v1.train is legacy): classic
# momentum by hand, in Keras' form v = m*v - lr*g; w += v, with one velocity slot per weight.
velocities = [tf.Variable(tf.zeros_like(w), trainable=False) for w in model.trainable_variables]


# [loss, optimizer] one training step, traced into one graph: the loss, its gradients, the update
@tf.function                                          # traced into one graph at the first call
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(model(x, training=True), y)
    gradients = tape.gradient(loss, model.trainable_variables)
    for w, v, g in zip(model.trainable_variables, velocities, gradients):
        v.assign(hp.momentum * v - hp.learning_rate * g)
        w.assign_add(v)
    return loss


print(sum(w.shape.num_elements() for w in model.trainable_variables), "parameters")

# %% tags=["train"]
# [batches]
for epoch in range(hp.epochs):
    for x, y in batches:                              # shuffled again each time it is iterated
        # [training-step]
        loss = train_step(x, y)
    # [progress]
    print(f"epoch {epoch + 1}: last batch loss {float(loss):.3f}")   # float() also waits for the GPU

# %% tags=["infer"]
# [predictions] training=False: dropout off.
predictions = tf.concat([tf.argmax(model(x), axis=1, output_type=tf.int32) for x in test_batches], axis=0)
# [accuracy]
accuracy = float(tf.reduce_mean(tf.cast(predictions == y_test, tf.float32)))
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * (len(x_train) // hp.batch_size) * hp.batch_size)
