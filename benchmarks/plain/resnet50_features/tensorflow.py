"""Plain-script twin of snippets/resnet50_features/tensorflow.py: the same tf.nn ResNet-50 v1 (no Keras, seeded
random weights), its features timed after one warm-up batch."""
import json
import math
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf

from rosetta import settings
from rosetta.data import random_images

hp = settings("resnet50_features")
rng = tf.random.Generator.from_seed(hp.seed)

images = tf.constant(random_images.load(hp, layout="NHWC"))
warm_up, *timed = tf.split(images, hp.batches + 1)


class ConvBN(tf.Module):                          # conv without bias, then inference-mode batch norm
    def __init__(self, in_channels, out_channels, size, stride=1):
        super().__init__()
        self.stride, self.padding = stride, [[0, 0], [size // 2, size // 2], [size // 2, size // 2], [0, 0]]
        std = math.sqrt(2 / (size * size * out_channels))
        self.kernel = tf.Variable(rng.normal((size, size, in_channels, out_channels), stddev=std))
        self.scale, self.offset = tf.Variable(tf.ones(out_channels)), tf.Variable(tf.zeros(out_channels))
        self.mean, self.variance = tf.Variable(tf.zeros(out_channels)), tf.Variable(tf.ones(out_channels))

    def __call__(self, x):
        x = tf.nn.conv2d(x, self.kernel, self.stride, self.padding)
        return tf.nn.batch_normalization(x, self.mean, self.variance, self.offset, self.scale, variance_epsilon=1e-5)


class Bottleneck(tf.Module):                      # v1: the stride in the first 1x1 convolution
    def __init__(self, in_channels, width, stride):
        super().__init__()
        self.conv1, self.conv2 = ConvBN(in_channels, width, 1, stride), ConvBN(width, width, 3)
        self.conv3 = ConvBN(width, 4 * width, 1)
        self.downsample = ConvBN(in_channels, 4 * width, 1, stride) if in_channels != 4 * width else None

    def __call__(self, x):
        y = self.conv3(tf.nn.relu(self.conv2(tf.nn.relu(self.conv1(x)))))
        return tf.nn.relu(y + (x if self.downsample is None else self.downsample(x)))


class ResNet50(tf.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.blocks, channels = ConvBN(3, 64, 7, 2), [], 64
        for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
            self.blocks += [Bottleneck(channels if i == 0 else 4 * width, width, stride if i == 0 else 1)
                            for i in range(blocks)]
            channels = 4 * width

    @tf.function
    def __call__(self, x):
        x = tf.nn.max_pool2d(tf.nn.relu(self.conv1(x)), 3, 2, padding=[[0, 0], [1, 1], [1, 1], [0, 0]])
        for block in self.blocks:
            x = block(x)
        return tf.reduce_mean(x, axis=(1, 2))


model = ResNet50()
model(warm_up).numpy()                            # warm-up: traces the graph for the timed shape

started = time.perf_counter()
features = tf.concat([model(batch) for batch in timed], axis=0).numpy()   # numpy(): synchronised
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": features.shape[0]}))
