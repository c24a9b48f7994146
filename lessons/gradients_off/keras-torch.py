# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Keras 3 · PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # Gradients off for inference, in Keras 3 on PyTorch
# Keras' own `predict()` turns recording off; calling the model directly, as a custom loop
# does, leaves that to PyTorch, which records whenever a weight requires a gradient.

# %% tags=["setup"]
import keras
import torch
from keras import layers

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("gradients_off")
keras.utils.set_random_seed(hp.seed)
keras.config.set_image_data_format("channels_last")  # as the CNN benchmark's Keras tab on a CPU
_, _, x_test, _ = cifar10.load(hp, layout="NHWC")
batches = torch.from_numpy(x_test).split(hp.batch_size)

# The CNN benchmark's network; its dropout is left out (in inference mode it is the identity).
model = keras.Sequential([
    keras.Input(shape=x_test.shape[1:]),
    layers.Conv2D(50, 3, padding="same", activation="relu"),
    layers.Conv2D(50, 3, padding="same"), layers.MaxPooling2D(2), layers.Activation("relu"),
    layers.Conv2D(100, 3, padding="same", activation="relu"),
    layers.Conv2D(100, 3, padding="same"), layers.MaxPooling2D(2), layers.Activation("relu"),
    layers.Flatten(),
    layers.Dense(512, activation="relu"),
    layers.Dense(10),
])
# Keras' trainable weights are torch Parameters that require a gradient, as PyTorch's own layers' are.
print("weights require grad:", all(w.value.requires_grad for w in model.trainable_weights))


# %% tags=["variants"]
def predict():
    # All the test logits, kept until the last batch is done, as code that goes on to an accuracy or a
    # test loss keeps them. While recording, each batch's logits hold on to that batch's graph.
    logits = torch.cat([model(batch, training=False) for batch in batches])
    del logits                                   # (what comes next is not part of the lesson)


def gradients_off():
    with torch.no_grad():                        # what model.predict() does around its batches
        predict()


def gradients_on():
    predict()                                    # the direct call records: the weights require grad


# %% tags=["measure"]
lesson.compare(hp, {"gradients_off": gradients_off, "gradients_on": gradients_on}, memory=True)
