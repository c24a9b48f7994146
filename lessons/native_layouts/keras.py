# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # Native layouts, in TensorFlow (Keras 3)

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import keras
from keras import layers

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("native_layouts")
keras.utils.set_random_seed(hp.seed)
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")


def trainer(images):
    """The CNN benchmark's network (dropout left out), built for the current image data format."""
    model = keras.Sequential([
        keras.Input(shape=images.shape[1:]),
        layers.Conv2D(50, 3, padding="same", activation="relu"),
        layers.Conv2D(50, 3, padding="same"),
        layers.MaxPooling2D(2),
        layers.Activation("relu"),
        layers.Conv2D(100, 3, padding="same", activation="relu"),
        layers.Conv2D(100, 3, padding="same"),
        layers.MaxPooling2D(2),
        layers.Activation("relu"),
        layers.Flatten(),
        layers.Dense(512, activation="relu"),
        layers.Dense(10),                                # logits
    ])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=hp.learning_rate, momentum=hp.momentum),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            model.train_on_batch(images[rows], y_train[rows])   # one compiled step (the backend's compiler)
    return train


# %% tags=["variants"]
# Each layer reads the data format when it is built. On a CPU, channels-first runs only through
# TensorFlow's oneDNN operations (on by default on x86): TensorFlow's own CPU kernels refuse NCHW.
keras.config.set_image_data_format("channels_first")
channels_first = trainer(x_train)                        # images (N, 3, 32, 32)
keras.config.set_image_data_format("channels_last")      # Keras' default
channels_last = trainer(x_train.transpose(0, 2, 3, 1).copy())   # images (N, 32, 32, 3)

# %% tags=["measure"]
lesson.compare(hp, {"channels_first": channels_first, "channels_last": channels_last})
