"""Plain-script twin of snippets/resnet50_features/tensorflow.py: ResNet50 features, timed after a warm-up batch."""
import json
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import keras

from rosetta import settings
from rosetta.data import random_images

hp = settings("resnet50_features")
keras.utils.set_random_seed(hp.seed)

images = random_images.load(hp, layout="NHWC")
warm_up, timed = images[:hp.batch_size], images[hp.batch_size:]

model = keras.applications.ResNet50(weights="imagenet" if hp.weights == "pretrained" else None,
                                    include_top=False, pooling="avg",
                                    input_shape=(hp.image_size, hp.image_size, 3))
model.predict(warm_up, batch_size=hp.batch_size, verbose=0)

started = time.perf_counter()
features = model.predict(timed, batch_size=hp.batch_size, verbose=0)   # returns numpy: already synchronised
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": features.shape[0]}))
