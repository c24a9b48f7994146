# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # ResNet-50 features with TensorFlow (Keras 3)
# `keras.applications.ResNet50` without its classifier, global average pooling at the end.

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import keras
import numpy as np
import tensorflow as tf

from rosetta import report, settings
from rosetta.data import random_images

hp = settings("resnet50_features")
keras.utils.set_random_seed(hp.seed)
on_gpu = bool(tf.config.list_physical_devices("GPU"))
# keras.applications builds channels-last models; TensorFlow's CPU kernels only run that way.
print(f"TensorFlow {tf.__version__}, Keras {keras.__version__} on {'GPU' if on_gpu else 'CPU'}, "
      f"profile {hp.profile}, {hp.weights} weights")

# %% tags=["data"]
images = random_images.load(hp, layout="NHWC")           # channels last
batches = [images[i:i + hp.batch_size] for i in range(0, len(images), hp.batch_size)]
print(len(batches), "batches of", batches[0].shape)

# %% tags=["model"]
# Keras' ResNet50 is "v1": the stride-2 of each downsampling block sits in the first 1x1 conv.
# weights="imagenet" downloads once into ~/.keras/models (offline: ROSETTA_WEIGHTS=random).
model = keras.applications.ResNet50(weights="imagenet" if hp.weights == "pretrained" else None,
                                    include_top=False, pooling="avg",
                                    input_shape=(hp.image_size, hp.image_size, 3))
# predict_on_batch() runs the compiled inference function (training=False: batch-norm uses its
# moving averages) on one batch. Warm-up: one batch of the timed shape, through the same call.
warm = model.predict_on_batch(batches[0])
print("features", warm.shape)

# %% tags=["infer"]
# One call per batch, as in the other tabs. model.predict(all_images) feeds them through a tf.data
# pipeline instead, and on a 2-core CPU its first call after the warm-up sometimes took 1.9 times as long.
features = np.concatenate([model.predict_on_batch(batch) for batch in batches[1:]])   # numpy: synchronised
print("features", features.shape)
report(images=features.shape[0], feature_size=features.shape[1])
