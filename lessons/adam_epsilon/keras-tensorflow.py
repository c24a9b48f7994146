# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # Adam's epsilon, before or after the bias correction, in TensorFlow (Keras 3)

# %% tags=["setup"]
import math
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import keras
import numpy as np
import tensorflow as tf
from keras import layers

from rosetta import lesson
from rosetta.data import imdb

hp = lesson.settings("adam_epsilon")
tf.get_logger().setLevel("ERROR")                      # every run builds a fresh model: no warnings about retracing
keras.utils.set_random_seed(hp.seed)
x_train, y_train, x_test, y_test = imdb.load(hp)        # int32 token ids (N, max_length), labels 1 = positive
n_train = len(x_train) // hp.batch_size * hp.batch_size  # full batches only, as in the other tab
x_train, y_train = x_train[:n_train], y_train[:n_train]


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


def train(adam):
    """One epoch over the training reviews, in order, from the same weights every time."""
    model = gru_classifier()
    model.set_weights(start)
    optimizer, callbacks = adam()
    model.compile(optimizer=optimizer, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x_train, y_train, batch_size=hp.batch_size, epochs=1, shuffle=False, verbose=0, callbacks=callbacks)
    return model


def test_accuracy(model):
    logits = model.predict(x_test, batch_size=500, verbose=0)
    return {"accuracy": float(np.mean(logits.argmax(axis=1) == y_test))}


# %% tags=["variants"]
def adam_before_correction():
    # Keras' Adam: w -= lr·(√(1−β₂ᵗ)/(1−β₁ᵗ))·m/(√v + ε). No callbacks.
    return keras.optimizers.Adam(learning_rate=hp.learning_rate, beta_1=hp.beta_1, beta_2=hp.beta_2,
                                 epsilon=hp.epsilon), []


def adam_after_correction():
    # PyTorch's form, w -= lr·m̂/(√v̂ + ε), is Keras' with ε·√(1−β₂ᵗ) in place of ε. Keras' Adam reads
    # its epsilon at every step, so give it a variable and set that before each batch.
    epsilon = keras.Variable(hp.epsilon, trainable=False, name="epsilon")
    optimizer = keras.optimizers.Adam(learning_rate=hp.learning_rate, beta_1=hp.beta_1, beta_2=hp.beta_2,
                                      epsilon=epsilon)

    class EpsilonAfterBiasCorrection(keras.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):    # step t = batch + 1 (one epoch)
            epsilon.assign(hp.epsilon * math.sqrt(1 - hp.beta_2 ** (batch + 1)))

    return optimizer, [EpsilonAfterBiasCorrection()]


def after_correction():
    return test_accuracy(train(adam_after_correction))


def before_correction():
    return test_accuracy(train(adam_before_correction))


# Once, outside the timed calls: how far apart the two forms leave the embedding.
embeddings = {name: train(adam).layers[0].get_weights()[0]
              for name, adam in (("after", adam_after_correction), ("before", adam_before_correction))}
max_embedding_difference = float(np.abs(embeddings["after"] - embeddings["before"]).max())
print(f"largest difference between the two forms' embeddings: {max_embedding_difference:.2e}")

# %% tags=["measure"]
lesson.compare(hp, {"after_correction": after_correction, "before_correction": before_correction},
               facts={"after_correction": {"max_embedding_difference": max_embedding_difference}})
