# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # Dropout at test time, in TensorFlow (tf.nn, no Keras)

# %% tags=["setup"]
import tensorflow as tf

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("dropout_at_test")
tf.random.set_seed(hp.seed)
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NHWC")
# An MLP reads each image as one vector of 32 × 32 × 3 = 3072 values.
x_train, x_test = tf.reshape(x_train, (len(x_train), -1)), tf.reshape(x_test, (len(x_test), -1))
y_train, y_test = tf.constant(y_train, tf.int64), tf.constant(y_test, tf.int64)

glorot = tf.initializers.GlorotUniform(seed=hp.seed)               # Glorot-uniform, zero biases, as the CNN
sizes = [(3072, hp.hidden), (hp.hidden, hp.hidden), (hp.hidden, 10)]
weights = [(tf.Variable(glorot(shape)), tf.Variable(tf.zeros(shape[1]))) for shape in sizes]
velocities = [tf.Variable(tf.zeros_like(v)) for pair in weights for v in pair]


def mlp(x, training):
    # tf.nn.dropout has no mode: dropout is on wherever it is called, so the network takes the flag itself.
    for kernel, bias in weights[:-1]:
        x = tf.nn.relu(x @ kernel + bias)
        x = tf.nn.dropout(x, rate=hp.dropout) if training else x
    kernel, bias = weights[-1]
    return x @ kernel + bias


@tf.function
def train_step(x, y):
    variables = [v for pair in weights for v in pair]
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, mlp(x, training=True)))
    for v, velocity, g in zip(variables, velocities, tape.gradient(loss, variables)):
        velocity.assign(hp.momentum * velocity - hp.learning_rate * g)   # classic momentum, as the CNN tab
        v.assign_add(velocity)


for _ in range(hp.epochs):
    order = tf.random.shuffle(tf.range(len(x_train)))
    for i in range(len(x_train) // hp.batch_size):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        train_step(tf.gather(x_train, rows), tf.gather(y_train, rows))


# %% tags=["variants"]
def accuracy(training):
    predictions = tf.argmax(mlp(x_test, training), axis=1)
    return float(tf.reduce_mean(tf.cast(predictions == y_test, tf.float32)))


def dropout_off():
    return {"accuracy": accuracy(training=False)}                   # inference: the dropout calls skipped


def dropout_on(seed):
    tf.random.set_seed(seed)                                        # this round's dropout masks
    return {"accuracy": accuracy(training=True)}                    # the mistake: the training flag left on


# %% tags=["measure"]
lesson.compare(hp, {"dropout_off": dropout_off, "dropout_on": dropout_on})
