"""Plain-script twin of snippets/gru_imdb/tensorflow.py: the same tf.nn GRU classifier (no Keras), its loop timed."""
import json
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf

from rosetta import settings
from rosetta.data import imdb

hp = settings("gru_imdb")
rng = tf.random.Generator.from_seed(hp.seed)

x_train, y_train, _, _ = imdb.load(hp)
batches = tf.data.Dataset.from_tensor_slices((x_train, y_train))
if getattr(hp, "shuffle", True):                  # a new order every epoch; the equivalence checks turn it off
    batches = batches.shuffle(len(x_train), seed=hp.seed)
batches = batches.batch(hp.batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def uniform(*shape):                              # uniform weights, zero biases (the snippet's init)
    return tf.Variable(rng.uniform(shape, -hp.init_scale, hp.init_scale))


class GRUClassifier(tf.Module):
    def __init__(self):
        super().__init__()
        hidden = hp.hidden_size
        self.embedding = uniform(hp.vocabulary_size, hp.embedding_size)
        self.input_kernel, self.recurrent_kernel = uniform(hp.embedding_size, 3 * hidden), uniform(hidden, 3 * hidden)
        self.input_bias, self.recurrent_bias = tf.Variable(tf.zeros(3 * hidden)), tf.Variable(tf.zeros(3 * hidden))
        self.fc_kernel, self.fc_bias = uniform(hidden, 2), tf.Variable(tf.zeros(2))

    def cell(self, h, x):                         # gates r, z, n; reset after the recurrent product
        x_r, x_z, x_n = tf.split(x, 3, axis=-1)
        h_r, h_z, h_n = tf.split(h @ self.recurrent_kernel + self.recurrent_bias, 3, axis=-1)
        r, z = tf.sigmoid(x_r + h_r), tf.sigmoid(x_z + h_z)
        return (1 - z) * tf.tanh(x_n + r * h_n) + z * h

    @tf.function
    def __call__(self, tokens):
        x = tf.nn.embedding_lookup(self.embedding, tf.transpose(tokens)) @ self.input_kernel + self.input_bias
        h = tf.foldl(self.cell, x, initializer=tf.zeros((tf.shape(tokens)[0], hp.hidden_size)))
        return h @ self.fc_kernel + self.fc_bias


model = GRUClassifier()
steps = tf.Variable(0.0, trainable=False)
moments = [(tf.Variable(tf.zeros_like(w), trainable=False), tf.Variable(tf.zeros_like(w), trainable=False))
           for w in model.trainable_variables]


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=model(x)))
    t = steps.assign_add(1.0)
    lr = hp.learning_rate * tf.sqrt(1 - hp.beta_2 ** t) / (1 - hp.beta_1 ** t)   # Adam, Kingma & Ba's form
    for w, (m, v), g in zip(model.trainable_variables, moments, tape.gradient(loss, model.trainable_variables)):
        g = tf.convert_to_tensor(g)               # the embedding's IndexedSlices, made dense
        m.assign(hp.beta_1 * m + (1 - hp.beta_1) * g)
        v.assign(hp.beta_2 * v + (1 - hp.beta_2) * tf.square(g))
        w.assign_sub(lr * m / (tf.sqrt(v) + hp.epsilon))
    return loss


n_batches = len(x_train) // hp.batch_size
started = time.perf_counter()
for _ in range(hp.epochs):
    for x, y in batches:
        loss = train_step(x, y)
float(loss)                                       # waits for the last step (a GPU runs asynchronously)
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": hp.epochs * n_batches * hp.batch_size}))
