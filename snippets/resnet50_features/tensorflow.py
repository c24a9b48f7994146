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
warm_up, timed = images[:hp.batch_size], images[hp.batch_size:]
print(len(images) // hp.batch_size, "batches of", warm_up.shape)

# %% tags=["model"]
# Keras' ResNet50 is "v1": the stride-2 of each downsampling block sits in the first 1x1 conv.
# weights="imagenet" downloads once into ~/.keras/models (offline: ROSETTA_WEIGHTS=random).
model = keras.applications.ResNet50(weights="imagenet" if hp.weights == "pretrained" else None,
                                    include_top=False, pooling="avg",
                                    input_shape=(hp.image_size, hp.image_size, 3))
# predict() runs a compiled tf.function with training=False: batch-norm uses its moving averages.
warm = model.predict(warm_up, batch_size=hp.batch_size, verbose=0)   # warm-up: traces it for the batch shape
print("features", warm.shape)

# %% tags=["infer"]
features = model.predict(timed, batch_size=hp.batch_size, verbose=0)   # returns numpy: already synchronised
print("features", features.shape)
report(images=features.shape[0], feature_size=features.shape[1])
