"""Plain-script twin of snippets/resnet50_features/theano.py: the same Theano ResNet-50 v1 (seeded random
weights: Theano has no model zoo), its features timed after one warm-up batch."""
import json
import time

import numpy as np
import theano
import theano.tensor as T
from theano.tensor.nnet.bn import batch_normalization_test
from theano.tensor.signal.pool import pool_2d

from rosetta import settings
from rosetta.data import random_images

hp = settings("resnet50_features")
rng = np.random.default_rng(hp.seed)
floatX = theano.config.floatX

images = random_images.load(hp, layout="NCHW")
warm_up, *timed = [images[i:i + hp.batch_size] for i in range(0, len(images), hp.batch_size)]


def conv_bn(x, in_channels, out_channels, size, stride=1):   # conv without bias, inference-form batch norm
    std = np.sqrt(2 / (size * size * out_channels))
    kernel = theano.shared(rng.normal(0, std, (out_channels, in_channels, size, size)).astype(floatX))
    x = T.nnet.conv2d(x, kernel, subsample=(stride, stride), border_mode="half", filter_flip=False)
    ones, zeros = theano.shared(np.ones(out_channels, floatX)), theano.shared(np.zeros(out_channels, floatX))
    return batch_normalization_test(x, ones, zeros, zeros, ones, axes="spatial", epsilon=1.001e-5)


def bottleneck(x, in_channels, width, stride):            # v1: the stride in the first 1x1 convolution
    y = T.nnet.relu(conv_bn(x, in_channels, width, 1, stride))
    y = T.nnet.relu(conv_bn(y, width, width, 3))
    y = conv_bn(y, width, 4 * width, 1)
    shortcut = conv_bn(x, in_channels, 4 * width, 1, stride) if in_channels != 4 * width else x
    return T.nnet.relu(y + shortcut)


inputs = T.tensor4()
x = T.nnet.relu(conv_bn(inputs, 3, 64, 7, 2))
x = pool_2d(x, ws=(3, 3), stride=(2, 2), pad=(1, 1), ignore_border=True)
channels = 64
for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
    for block in range(blocks):
        x = bottleneck(x, channels, width, stride if block == 0 else 1)
        channels = 4 * width
extract = theano.function([inputs], x.mean(axis=(2, 3)))

extract(warm_up)                                           # compiled above; the first call allocates
started = time.perf_counter()
features = np.concatenate([extract(batch) for batch in timed])   # synchronous on the CPU
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": features.shape[0]}))
