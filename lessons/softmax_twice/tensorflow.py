# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # A softmax twice, in TensorFlow (tf.nn, no Keras)

# %% tags=["setup"]
import tensorflow as tf

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("softmax_twice")
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NHWC")
# An MLP reads each image as one vector of 32 × 32 × 3 = 3072 values.
x_train, x_test = tf.reshape(x_train, (len(x_train), -1)), tf.reshape(x_test, (len(x_test), -1))
y_train, y_test = tf.constant(y_train, tf.int64), tf.constant(y_test, tf.int64)
sizes = [(3072, hp.hidden), (hp.hidden, hp.hidden), (hp.hidden, 10)]


def train_and_test(softmax_out, seed):
    tf.random.set_seed(seed)                                        # same start and batch order in both
    glorot = tf.initializers.GlorotUniform(seed=seed)               # Glorot-uniform, zero biases, as the CNN
    variables = [w for shape in sizes for w in (tf.Variable(glorot(shape)), tf.Variable(tf.zeros(shape[1])))]
    velocities = [tf.Variable(tf.zeros_like(v)) for v in variables]

    def mlp(x):
        for kernel, bias in zip(variables[0:-2:2], variables[1:-2:2]):
            x = tf.nn.relu(x @ kernel + bias)
        x = x @ variables[-2] + variables[-1]
        return tf.nn.softmax(x) if softmax_out else x

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:                             # the loss takes logits: softmax inside
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, mlp(x)))
        for v, velocity, g in zip(variables, velocities, tape.gradient(loss, variables)):
            velocity.assign(hp.momentum * velocity - hp.learning_rate * g)   # classic momentum, as the CNN tab
            v.assign_add(velocity)
        return loss

    n_batches, total = len(x_train) // hp.batch_size, 0.0
    for _ in range(hp.epochs):
        order = tf.random.shuffle(tf.range(len(x_train)))
        for i in range(n_batches):
            rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
            total += float(train_step(tf.gather(x_train, rows), tf.gather(y_train, rows)))
    accuracy = tf.reduce_mean(tf.cast(tf.argmax(mlp(x_test), axis=1) == y_test, tf.float32))
    return {"accuracy": float(accuracy), "loss": total / n_batches}


# %% tags=["variants"]
def softmax_once(seed):
    return train_and_test(False, seed)                              # logits out: the loss applies the softmax


def softmax_twice(seed):
    return train_and_test(True, seed)               # the mistake: probabilities out, softmaxed again in the loss


# %% tags=["measure"]
lesson.compare(hp, {"softmax_once": softmax_once, "softmax_twice": softmax_twice})
