"""Plain-script twin of snippets/resnet50_features/keras.py: ResNet50 features, timed after a warm-up batch, on
the backend KERAS_BACKEND names."""
import json
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import keras
import numpy as np

from rosetta import settings
from rosetta.data import random_images

hp = settings("resnet50_features")
keras.utils.set_random_seed(hp.seed)
on_gpu = any(name in str(keras.ops.zeros(()).device).lower() for name in ("gpu", "cuda"))
layout = "channels_first" if on_gpu or keras.backend.backend() == "torch" else "channels_last"   # the snippet's choice
keras.config.set_image_data_format(layout)

images = random_images.load(hp, layout="NCHW" if layout == "channels_first" else "NHWC")
batches = [images[i:i + hp.batch_size] for i in range(0, len(images), hp.batch_size)]

model = keras.applications.ResNet50(weights="imagenet" if hp.weights == "pretrained" else None,
                                    include_top=False, pooling="avg",
                                    input_shape=images.shape[1:])
model.predict_on_batch(batches[0])                           # warm-up: the timed shape, the same call

started = time.perf_counter()
features = np.concatenate([model.predict_on_batch(batch) for batch in batches[1:]])   # numpy: synchronised
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": features.shape[0]}))
