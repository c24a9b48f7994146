# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # ResNet-50 throughput against batch size, in Keras 3 (on each backend)

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import keras

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("resnet_batch_size")
keras.utils.set_random_seed(hp.seed)
# The benchmark's layout per backend: channels first on PyTorch (Keras' torch backend copies channels-last
# maps around every convolution), channels last on TensorFlow (its CPU kernels) and JAX.
layout = "channels_first" if keras.backend.backend() == "torch" else "channels_last"
keras.config.set_image_data_format(layout)           # keras.applications builds its models in this layout
images = random_images.load(hp, layout="NCHW" if layout == "channels_first" else "NHWC")
model = keras.applications.ResNet50(weights=None, include_top=False, pooling="avg",   # random weights: nothing
                                    input_shape=images.shape[1:])                       # is downloaded here
model.compile(optimizer=None, jit_compile="auto")    # as in the benchmark: XLA on TensorFlow (GPU) and JAX
# TensorFlow allocates from its own pool, which keeps what it once held: the resident-memory count cannot see a
# call's peak on that backend, so its script reports the pool's own (it replaces the helper's measurement).
pooled = keras.backend.backend() == "tensorflow"
if pooled:
    import tensorflow as tf


# %% tags=["variants"]
def extractor(batch_size):
    """All the images through the model, `batch_size` at a time, as the benchmark's loop."""
    batches = [images[i:i + batch_size] for i in range(0, len(images), batch_size)]

    def extract():
        if pooled:
            tf.config.experimental.reset_memory_stats("CPU:0")
            before = tf.config.experimental.get_memory_info("CPU:0")["current"]
        for batch in batches:
            # training=False, compiled for each new batch shape (in the variant's warm-up call); numpy out: synchronised
            model.predict_on_batch(batch)
        if pooled:
            return {"peak_memory_mb": (tf.config.experimental.get_memory_info("CPU:0")["peak"] - before) / 2**20}
    return extract


variants = {f"batch_{size}": extractor(size) for size in hp.batch_sizes}

# %% tags=["measure"]
# memory=True: each call's extra peak resident memory, next to its time.
lesson.compare(hp, variants, memory=True, per_second={"images": {name: len(images) for name in variants}})
