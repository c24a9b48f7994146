# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # ResNet-50 features with TensorFlow (no Keras)
# TensorFlow's model zoo is Keras' (`keras.applications`), so without Keras the network is written out
# here from `tf.nn` ops: ResNet-50 "v1", like Keras' and Gluon's zoos, cut after global average pooling,
# with **seeded random weights** (He-normal kernels) whatever `ROSETTA_WEIGHTS` says. Random weights
# time the same.

# %% tags=["setup"]
# [imports]
import math
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import tensorflow as tf

from rosetta import report, settings
from rosetta.data import random_images
from rosetta.report import note

# [seeds]
hp = settings("resnet50_features")
rng = tf.random.Generator.from_seed(hp.seed)         # seeded initial weights
# [device]
on_gpu = bool(tf.config.list_physical_devices("GPU"))
tf.config.experimental.enable_tensor_float_32_execution(False)   # float32, not TF32 (its default on a GPU)
math_mode = "float32 (TF32 off), cuDNN autotune on" if on_gpu else "float32"   # autotune: TensorFlow's default
print(f"TensorFlow {tf.__version__} on {'GPU' if on_gpu else 'CPU'}, {math_mode}, channels last, "
      f"profile {hp.profile}, random weights (no model zoo without Keras)")

# %% tags=["data"]
# Channels last (N, 224, 224, 3): TensorFlow's native layout, the only one its own CPU kernels run. On a
# GPU, its graph optimizer (grappler) chooses the convolutions' layout inside a tf.function by itself.
images = tf.constant(random_images.load(hp, layout="NHWC"))
batches = tf.split(images, hp.batches + 1)              # batch 0 warms up, the rest are timed
print(len(batches), "batches of", tuple(batches[0].shape))


# %% tags=["model"]
# [network]
class ConvBN(tf.Module):
    """A convolution without bias, then batch normalisation (which has one) in inference mode."""

    def __init__(self, in_channels, out_channels, size, stride=1):
        super().__init__()
        self.stride = stride
        self.padding = [[0, 0], [size // 2, size // 2], [size // 2, size // 2], [0, 0]]   # zero padding, (N, H, W, C)
        std = math.sqrt(2 / (size * size * out_channels))   # He-normal over fan-out: torchvision's random init
        self.kernel = tf.Variable(rng.normal((size, size, in_channels, out_channels), stddev=std))
        # A fresh batch norm: scale 1, offset 0, running mean 0 and variance 1 (zoo weights would replace them).
        self.scale, self.offset = tf.Variable(tf.ones(out_channels)), tf.Variable(tf.zeros(out_channels))
        self.mean, self.variance = tf.Variable(tf.zeros(out_channels)), tf.Variable(tf.ones(out_channels))

    def __call__(self, x):
        x = tf.nn.conv2d(x, self.kernel, self.stride, self.padding)
        # The running statistics, not the batch's; ε = 1e-5, as in PyTorch's and Gluon's zoos (Keras: 1.001e-5).
        return tf.nn.batch_normalization(x, self.mean, self.variance, self.offset, self.scale, variance_epsilon=1e-5)


class Bottleneck(tf.Module):
    def __init__(self, in_channels, width, stride):
        super().__init__()
        # "v1": the stride 2 of a downsampling block sits in the first 1x1 convolution.
        self.conv1 = ConvBN(in_channels, width, 1, stride)
        self.conv2 = ConvBN(width, width, 3)
        self.conv3 = ConvBN(width, 4 * width, 1)
        # A stage's first block projects the shortcut to the new width (and stride).
        self.downsample = ConvBN(in_channels, 4 * width, 1, stride) if in_channels != 4 * width else None

    def __call__(self, x):
        y = tf.nn.relu(self.conv1(x))
        y = tf.nn.relu(self.conv2(y))
        y = self.conv3(y)
        return tf.nn.relu(y + (x if self.downsample is None else self.downsample(x)))


class ResNet50(tf.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = ConvBN(3, 64, 7, 2)
        self.stages, channels = [], 64
        for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
            self.stages.append([Bottleneck(channels, width, stride)]
                               + [Bottleneck(4 * width, width, 1) for _ in range(blocks - 1)])
            channels = 4 * width

    @tf.function                                      # one graph: no Python between the ops, grappler optimises it
    def __call__(self, x):
        x = tf.nn.relu(self.conv1(x))
        x = tf.nn.max_pool2d(x, ksize=3, strides=2, padding=[[0, 0], [1, 1], [1, 1], [0, 0]])
        for stage in self.stages:
            for block in stage:
                x = block(x)
        return tf.reduce_mean(x, axis=(1, 2))         # global average pooling: (N, 2048)


model = ResNet50()
note(weights=f"random weights (seeded, seed {hp.seed}, He-normal): TensorFlow without Keras has no model zoo")
# [warm-up] No tf.GradientTape is recording: nothing is kept for gradients.
warm = model(batches[0]).numpy()                         # warm-up: traces the graph for the timed batches' shape
print("features", warm.shape)

# %% tags=["infer"]
features = tf.concat([model(batch) for batch in batches[1:]], axis=0).numpy()   # numpy(): the work is done
print("features", features.shape)
report(images=features.shape[0], feature_size=features.shape[1])
