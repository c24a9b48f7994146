# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # ReLU after max-pooling, in TensorFlow (Keras 3)

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import keras
import numpy as np
from keras import layers

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("relu_after_pool")
keras.utils.set_random_seed(hp.seed)
x_train, y_train, x_test, _ = cifar10.load(hp, layout="NHWC")   # Keras' default: channels-last


def vggish(block):
    """The CNN benchmark's network (dropout left out: it does not change the order's cost)."""
    return keras.Sequential([
        keras.Input(shape=x_train.shape[1:]),
        layers.Conv2D(50, 3, padding="same", activation="relu"),
        layers.Conv2D(50, 3, padding="same"),
        *block(),
        layers.Conv2D(100, 3, padding="same", activation="relu"),
        layers.Conv2D(100, 3, padding="same"),
        *block(),
        layers.Flatten(),
        layers.Dense(512, activation="relu"),
        layers.Dense(10),                                # logits
    ])


# %% tags=["variants"]
def relu_then_pool():
    return [layers.Activation("relu"), layers.MaxPooling2D(2)]


def pool_then_relu():                                    # a quarter of the values reach the ReLU
    return [layers.MaxPooling2D(2), layers.Activation("relu")]


first = vggish(relu_then_pool)
second = vggish(pool_then_relu)
second.set_weights(first.get_weights())                 # the same weights in both
max_difference = float(np.abs(first.predict(x_test, verbose=0) - second.predict(x_test, verbose=0)).max())
print(f"largest difference between the two orders' logits: {max_difference:.2e}")


def trainer(model):
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=hp.learning_rate, momentum=hp.momentum),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            model.train_on_batch(x_train[rows], y_train[rows])   # one compiled step (the backend's compiler)
    return train


# %% tags=["measure"]
lesson.compare(hp, {"relu_then_pool": trainer(first), "pool_then_relu": trainer(second)},
               facts={"pool_then_relu": {"max_difference": max_difference}})
