# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Keras 3 · TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # Batch normalisation at inference, in Keras 3

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import keras
import numpy as np

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("batchnorm_inference")
keras.utils.set_random_seed(hp.seed)
images = random_images.load(hp, layout="NHWC")           # channels last: Keras' default
check, *batches = np.split(images, len(images) // hp.batch_size)   # the first batch checks, the others are timed
# The benchmark's features: ResNet50 without its classifier, average-pooled, 2048 per image (random weights).
model = keras.applications.ResNet50(weights=None, include_top=False, pooling="avg",
                                    input_shape=(hp.image_size, hp.image_size, 3))
# Running statistics as training leaves them: batches called with training=True, which updates them.
rng = np.random.default_rng(hp.seed + 1)
for _ in range(hp.calibration):
    model(rng.standard_normal(check.shape, dtype=np.float32), training=True)


# %% tags=["variants"]
def features(batch, training):
    return keras.ops.convert_to_numpy(model(batch, training=training))   # training=False: inference mode


def batch_dependence(training):
    """How far one image's features move when the rest of its batch changes: largest difference / largest feature."""
    alone_with = features(check, training)[0]
    with_others = features(np.concatenate([check[:1], batches[0][1:]]), training)[0]
    return float(np.abs(alone_with - with_others).max() / np.abs(alone_with).max())


# (Measured in inference mode first: every call in training mode moves the running statistics a little.)
dependence = {"inference_mode": batch_dependence(False), "training_mode": batch_dependence(True)}
print("largest relative change of one image's features with other batch-mates:", dependence)


def extractor(training):
    def extract():
        for batch in batches:
            features(batch, training)
    return extract


# %% tags=["measure"]
lesson.compare(hp, {"inference_mode": extractor(False), "training_mode": extractor(True)},
               facts={name: {"batch_dependence": value} for name, value in dependence.items()})
