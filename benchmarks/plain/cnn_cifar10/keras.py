"""Plain-script twin of snippets/cnn_cifar10/keras.py: the same Keras CNN, its model.fit timed, on the
backend KERAS_BACKEND names."""
import json
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import keras
from keras import layers

from rosetta import settings
from rosetta.data import cifar10

hp = settings("cnn_cifar10")
keras.utils.set_random_seed(hp.seed)
on_gpu = any(name in str(keras.ops.zeros(()).device).lower() for name in ("gpu", "cuda"))
layout = "channels_first" if on_gpu else "channels_last"
keras.config.set_image_data_format(layout)

x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW" if layout == "channels_first" else "NHWC")
n_train = len(x_train) // hp.batch_size * hp.batch_size     # full batches only
x_train, y_train = x_train[:n_train], y_train[:n_train]

model = keras.Sequential([
    keras.Input(shape=x_train.shape[1:]),
    layers.Conv2D(50, 3, padding="same", activation="relu"),
    layers.Conv2D(50, 3, padding="same"),
    layers.MaxPooling2D(2),
    layers.Activation("relu"),
    layers.Dropout(hp.dropout_conv),
    layers.Conv2D(100, 3, padding="same", activation="relu"),
    layers.Conv2D(100, 3, padding="same"),
    layers.MaxPooling2D(2),
    layers.Activation("relu"),
    layers.Dropout(hp.dropout_conv),
    layers.Flatten(),
    layers.Dense(512, activation="relu"),
    layers.Dropout(hp.dropout_dense),
    layers.Dense(10),
])
model.compile(optimizer=keras.optimizers.SGD(learning_rate=hp.learning_rate, momentum=hp.momentum),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))

started = time.perf_counter()
model.fit(x_train, y_train, batch_size=hp.batch_size, epochs=hp.epochs, shuffle=getattr(hp, "shuffle", True),
          verbose=0)                                         # returns when the last step has finished
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": hp.epochs * n_train}))
