# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # CNN on CIFAR-10 with TensorFlow (Keras 3)
# The same network as a `keras.Sequential` on the TensorFlow backend, trained with `fit`.

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import keras
import numpy as np
import tensorflow as tf

from rosetta import report, settings
from rosetta.data import cifar10

hp = settings("cnn_cifar10")
keras.utils.set_random_seed(hp.seed)
on_gpu = bool(tf.config.list_physical_devices("GPU"))
# Layout: cuDNN is fastest channels-first; TensorFlow's own CPU kernels only run channels-last.
layout = "channels_first" if on_gpu else "channels_last"
keras.config.set_image_data_format(layout)
print(f"TensorFlow {tf.__version__}, Keras {keras.__version__} on {'GPU' if on_gpu else 'CPU'}, "
      f"{layout}, profile {hp.profile}")

# %% tags=["data"]
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW" if on_gpu else "NHWC")
# fit() would also train a last partial batch: keep full batches only, as the other tabs do.
n_train = len(x_train) // hp.batch_size * hp.batch_size
x_train, y_train = x_train[:n_train], y_train[:n_train]
print("train", x_train.shape, "test", x_test.shape)

# %% tags=["model"]
from keras import layers

# Keras' default kernel initializer is already Glorot-uniform with zero biases.
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
    layers.Dense(10),                                    # logits
])
model.compile(
    # Keras' momentum is the classic one: v = m*v - lr*g; w += v.
    optimizer=keras.optimizers.SGD(learning_rate=hp.learning_rate, momentum=hp.momentum),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
)
print(model.count_params(), "parameters")

# %% tags=["train"]
# fit() shuffles every epoch (its own generator) and compiles the training step into a graph (tf.function).
history = model.fit(x_train, y_train, batch_size=hp.batch_size, epochs=hp.epochs, shuffle=hp.shuffle, verbose=0)
for epoch, loss in enumerate(history.history["loss"], 1):
    print(f"epoch {epoch}: mean loss {loss:.3f}")

# %% tags=["infer"]
# predict() runs the layers in inference mode: dropout off.
logits = model.predict(x_test, batch_size=hp.batch_size, verbose=0)
accuracy = float(np.mean(logits.argmax(axis=1) == y_test))
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_train)
