# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Theano'
#     language: python
#     name: rosetta-theano
# ---

# %% [markdown]
# # ResNet-50 throughput against batch size, in Theano
# Theano has no model zoo: the network is the ResNet-50 benchmark's snippet's, copied. Its compiled
# function takes any batch size (the graph's shapes are symbolic), so one compilation serves them all.

# %% tags=["setup"]
import numpy as np
import theano
import theano.tensor as T
from theano.tensor.nnet.bn import batch_normalization_test
from theano.tensor.signal.pool import pool_2d

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("resnet_batch_size")
floatX = theano.config.floatX                            # float32, set in THEANO_FLAGS
rng = np.random.default_rng(hp.seed)
images = random_images.load(hp, layout="NCHW")           # channels first


def conv_bn(x, in_channels, out_channels, size, stride=1):
    """A convolution without bias, then batch normalisation in inference form (a fresh one's statistics)."""
    std = np.sqrt(2 / (size * size * out_channels))      # He-normal over fan-out, random weights
    kernel = theano.shared(rng.normal(0, std, (out_channels, in_channels, size, size)).astype(floatX))
    x = T.nnet.conv2d(x, kernel, subsample=(stride, stride), border_mode="half", filter_flip=False)
    ones, zeros = np.ones(out_channels, floatX), np.zeros(out_channels, floatX)
    return batch_normalization_test(x, *(theano.shared(v) for v in (ones, zeros, zeros, ones)),
                                    axes="spatial", epsilon=1.001e-5)


def bottleneck(x, in_channels, width, stride):
    y = T.nnet.relu(conv_bn(x, in_channels, width, 1, stride))   # v1: the stride in the first 1×1
    y = T.nnet.relu(conv_bn(y, width, width, 3))
    y = conv_bn(y, width, 4 * width, 1)
    if in_channels != 4 * width:
        x = conv_bn(x, in_channels, 4 * width, 1, stride)
    return T.nnet.relu(y + x)


def resnet50(x):
    x = T.nnet.relu(conv_bn(x, 3, 64, 7, stride=2))
    x = pool_2d(x, ws=(3, 3), stride=(2, 2), pad=(1, 1), ignore_border=True)
    channels = 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for block in range(blocks):
            x = bottleneck(x, channels, width, stride if block == 0 else 1)
            channels = 4 * width
    return x.mean(axis=(2, 3))                           # the benchmark's features: 2048 per image


inputs = T.tensor4("inputs")
extract_batch = theano.function([inputs], resnet50(inputs))   # optimised and compiled to C once, for every size


# %% tags=["variants"]
def extractor(batch_size):
    """All the images through the model, `batch_size` at a time, as the benchmark's loop."""
    batches = [images[i:i + batch_size] for i in range(0, len(images), batch_size)]

    def extract():
        for batch in batches:
            extract_batch(batch)                         # on a CPU, a Theano call returns when it has run
    return extract


variants = {f"batch_{size}": extractor(size) for size in hp.batch_sizes}

# %% tags=["measure"]
# memory=True: each call's extra peak resident memory, next to its time.
lesson.compare(hp, variants, memory=True, per_second={"images": {name: len(images) for name in variants}})
