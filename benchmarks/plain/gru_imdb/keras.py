"""Plain-script twin of snippets/gru_imdb/keras.py: the same Keras GRU classifier, its model.fit timed, on
the backend KERAS_BACKEND names."""
import json
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import keras
from keras import layers

from rosetta import settings
from rosetta.data import imdb

hp = settings("gru_imdb")
keras.utils.set_random_seed(hp.seed)

x_train, y_train, _, _ = imdb.load(hp)
n_train = len(x_train) // hp.batch_size * hp.batch_size     # full batches only
x_train, y_train = x_train[:n_train], y_train[:n_train]


def uniform():   # one initializer per tensor: an unseeded instance used twice repeats its values
    return keras.initializers.RandomUniform(-hp.init_scale, hp.init_scale)


model = keras.Sequential([
    keras.Input(shape=(hp.max_length,), dtype="int32"),
    layers.Embedding(hp.vocabulary_size, hp.embedding_size, embeddings_initializer=uniform()),
    layers.GRU(hp.hidden_size, kernel_initializer=uniform(), recurrent_initializer=uniform()),
    layers.Dense(2, kernel_initializer=uniform()),
])
model.compile(optimizer=keras.optimizers.Adam(learning_rate=hp.learning_rate, beta_1=hp.beta_1,
                                              beta_2=hp.beta_2, epsilon=hp.epsilon),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))

started = time.perf_counter()
model.fit(x_train, y_train, batch_size=hp.batch_size, epochs=hp.epochs, shuffle=getattr(hp, "shuffle", True),
          verbose=0)                                         # returns when the last step has finished
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": hp.epochs * n_train}))
