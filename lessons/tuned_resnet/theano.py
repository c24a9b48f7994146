# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Theano'
#     language: python
#     name: rosetta-theano
# ---

# %% [markdown]
# # ResNet-50 features, as written and tuned, in Theano
# Theano has no model zoo: the network is the ResNet-50 benchmark's snippet's, copied. The snippet
# compiles it with `theano.function`'s defaults (the FAST_RUN optimizations, which already fold
# and fuse the graph, and the C virtual machine that frees each intermediate array once used).
# What Theano's performance advice leaves to try is keeping those arrays between calls
# (`allow_gc=False`, the `cvm_nogc` linker): ResNet-50 allocates some 160 feature maps a call.

# %% tags=["setup"]
import time

import numpy as np
import theano
import theano.tensor as T
from theano.tensor.nnet.bn import batch_normalization_test
from theano.tensor.signal.pool import pool_2d

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("tuned_resnet")
floatX = theano.config.floatX                            # float32, set in THEANO_FLAGS
rng = np.random.default_rng(hp.seed)
images = random_images.load(hp, layout="NCHW")           # channels first
check, *batches = [images[i:i + hp.batch_size] for i in range(0, len(images), hp.batch_size)]


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
graph = resnet50(inputs)                                 # one graph, one set of weights, compiled twice


def extractor(extract_batch):
    """The snippet's timed loop, every batch through the compiled function."""
    def extract():
        for batch in batches:
            extract_batch(batch)                         # on a CPU, a Theano call returns when it has run
    return extract


# %% tags=["variants"]
compiled = {
    "as_written": theano.function([inputs], graph),     # FAST_RUN, the "cvm" linker
    "no_gc": theano.function([inputs], graph, mode=theano.Mode(linker="cvm_nogc", optimizer="fast_run")),
}

# %% tags=["measure"]
facts, reference = {}, None
for name, extract_batch in compiled.items():
    started = time.perf_counter()                        # the first call, timed once
    out = extract_batch(check)
    facts[name] = {"first_call_seconds": time.perf_counter() - started}
    reference = out if reference is None else reference
    facts[name]["relative_difference"] = float(abs(out - reference).max() / abs(reference).max())
lesson.compare(hp, {name: extractor(f) for name, f in compiled.items()}, facts=facts)
