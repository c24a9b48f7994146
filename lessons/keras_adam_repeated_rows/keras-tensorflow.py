# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # Keras' Adam and words that repeat in a batch, in TensorFlow (Keras 3)

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import keras
import numpy as np
import tensorflow as tf
from keras import layers

from rosetta import lesson
from rosetta.data import imdb

hp = lesson.settings("keras_adam_repeated_rows")
tf.get_logger().setLevel("ERROR")                      # every run builds a fresh model: no warnings about retracing
keras.utils.set_random_seed(hp.seed)
x_train, y_train, x_test, y_test = imdb.load(hp)        # int32 token ids (N, max_length), labels 1 = positive
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def uniform():
    return keras.initializers.RandomUniform(-hp.init_scale, hp.init_scale)


def gru_classifier():
    """The GRU benchmark's model: embedding, one GRU layer, dense 2 on the last hidden state."""
    return keras.Sequential([
        keras.Input(shape=(hp.max_length,), dtype="int32"),
        layers.Embedding(hp.vocabulary_size, hp.embedding_size, embeddings_initializer=uniform()),
        layers.GRU(hp.hidden_size, kernel_initializer=uniform(), recurrent_initializer=uniform()),
        layers.Dense(2, kernel_initializer=uniform()),
    ])


start = gru_classifier().get_weights()                   # the same start for every run
n_batches = len(x_train) // hp.batch_size                # full batches only


def train(gradients_for, batches=n_batches):
    """`batches` batches of the training reviews, in order, from the same weights every time."""
    model = gru_classifier()
    model.set_weights(start)
    optimizer = keras.optimizers.Adam(learning_rate=hp.learning_rate, beta_1=hp.beta_1, beta_2=hp.beta_2,
                                      epsilon=hp.epsilon)

    @tf.function                                         # one compiled training step per run
    def train_step(tokens, labels):
        with tf.GradientTape() as tape:
            loss = loss_fn(labels, model(tokens, training=True))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients_for(gradients), model.trainable_variables))

    for first in range(0, batches * hp.batch_size, hp.batch_size):
        train_step(x_train[first:first + hp.batch_size], y_train[first:first + hp.batch_size])
    return model


def test_accuracy(model):
    logits = model.predict(x_test, batch_size=500, verbose=0)
    return {"accuracy": float(np.mean(logits.argmax(axis=1) == y_test))}


# %% tags=["variants"]
def as_given(gradients):
    # The embedding's gradient is a tf.IndexedSlices, one row per token: Adam squares each row, so a
    # word seen twice adds g₁² + g₂² to its second moment.
    return gradients


def duplicates_summed(gradients):
    # A dense tensor adds the rows of a repeated word up first: (g₁ + g₂)², as PyTorch, MXNet and Chainer
    # do. (To stay sparse: tf.unique the indices and tf.math.unsorted_segment_sum the values.)
    return [tf.convert_to_tensor(gradient) for gradient in gradients]


def indexed_slices():
    return test_accuracy(train(as_given))


def dense_gradient():
    return test_accuracy(train(duplicates_summed))


with tf.GradientTape() as tape:                          # what the embedding's gradient is, on the first batch
    probe = gru_classifier()
    loss = loss_fn(y_train[:hp.batch_size], probe(x_train[:hp.batch_size]))
gradient = tape.gradient(loss, probe.trainable_variables[0])
print(f"the embedding's gradient: {type(gradient).__name__} with {gradient.values.shape[0]} rows "
      f"for {len(np.unique(gradient.indices))} distinct words")

# Once, outside the timed calls: how far apart the two leave the embedding, after training...
embeddings = {name: train(gradients_for).layers[0].get_weights()[0]
              for name, gradients_for in (("as_given", as_given), ("summed", duplicates_summed))}
max_embedding_difference = float(np.abs(embeddings["as_given"] - embeddings["summed"]).max())
# ...and after the first step alone, word by word, against how often the word is in that batch.
first_step = {name: train(gradients_for, batches=1).layers[0].get_weights()[0]
              for name, gradients_for in (("as_given", as_given), ("summed", duplicates_summed))}
per_word = np.abs(first_step["as_given"] - first_step["summed"]).max(axis=1)
counts = np.bincount(x_train[:hp.batch_size].ravel(), minlength=hp.vocabulary_size)
by_count = {"once": counts == 1, "2_to_9_times": (counts >= 2) & (counts <= 9), "10_or_more_times": counts >= 10}
first_step_facts = {f"first_step_words_seen_{name}": float(per_word[rows].mean()) for name, rows in by_count.items()}
print(f"largest difference between the two embeddings after training: {max_embedding_difference:.2e}")
for name, rows in by_count.items():
    print(f"after the first step, words seen {name.replace('_', ' ')} in the batch ({rows.sum()} words): "
          f"mean largest difference {per_word[rows].mean():.1e}")

# %% tags=["measure"]
lesson.compare(hp, {"indexed_slices": indexed_slices, "dense_gradient": dense_gradient},
               facts={"dense_gradient": {"max_embedding_difference": max_embedding_difference, **first_step_facts}})
