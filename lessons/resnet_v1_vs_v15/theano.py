# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Theano'
#     language: python
#     name: rosetta-theano
# ---

# %% [markdown]
# # ResNet-50 v1 against v1.5, in Theano
# Theano has no model zoo: the network is the ResNet-50 benchmark's snippet's (v1), copied, with
# the place of the downsampling stride as an argument. Theano has no FLOP counter: the FLOPs are
# PyTorch's tab's.

# %% tags=["setup"]
import numpy as np
import theano
import theano.tensor as T
from theano.tensor.nnet.bn import batch_normalization_test
from theano.tensor.signal.pool import pool_2d

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("resnet_v1_vs_v15")
floatX = theano.config.floatX                            # float32, set in THEANO_FLAGS
rng = np.random.default_rng(hp.seed)
images = random_images.load(hp, layout="NCHW")           # channels first
check, *batches = [images[i:i + hp.batch_size] for i in range(0, len(images), hp.batch_size)]
params = {}                                              # shared variables by name: both versions use the same


def conv_bn(x, name, in_channels, out_channels, size, stride=1):
    """A convolution without bias, then batch normalisation in inference form (a fresh one's statistics)."""
    if name not in params:
        std = np.sqrt(2 / (size * size * out_channels))  # He-normal over fan-out, random weights
        ones, zeros = np.ones(out_channels, floatX), np.zeros(out_channels, floatX)
        params[name] = [theano.shared(rng.normal(0, std, (out_channels, in_channels, size, size)).astype(floatX)),
                        *(theano.shared(v) for v in (ones, zeros, zeros, ones))]
    kernel, *batch_norm = params[name]
    x = T.nnet.conv2d(x, kernel, subsample=(stride, stride), border_mode="half", filter_flip=False)
    return batch_normalization_test(x, *batch_norm, axes="spatial", epsilon=1.001e-5)


def bottleneck(x, prefix, in_channels, width, stride, v1_5):
    # A downsampling block strides in its first 1×1 convolution in v1 (which then skips three quarters
    # of its input positions), in the 3×3 after it in v1.5.
    stride_1x1, stride_3x3 = (1, stride) if v1_5 else (stride, 1)
    y = T.nnet.relu(conv_bn(x, f"{prefix}.conv1", in_channels, width, 1, stride_1x1))
    y = T.nnet.relu(conv_bn(y, f"{prefix}.conv2", width, width, 3, stride_3x3))
    y = conv_bn(y, f"{prefix}.conv3", width, 4 * width, 1)
    if in_channels != 4 * width:
        x = conv_bn(x, f"{prefix}.downsample", in_channels, 4 * width, 1, stride)
    return T.nnet.relu(y + x)


def resnet50(x, v1_5):
    x = T.nnet.relu(conv_bn(x, "conv1", 3, 64, 7, stride=2))
    x = pool_2d(x, ws=(3, 3), stride=(2, 2), pad=(1, 1), ignore_border=True)
    channels = 64
    for stage, (width, blocks, stride) in enumerate(((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)), 1):
        for block in range(blocks):
            x = bottleneck(x, f"layer{stage}.{block}", channels, width, stride if block == 0 else 1, v1_5)
            channels = 4 * width
    return x.mean(axis=(2, 3))                           # the benchmark's features: 2048 per image


def extractor(extract_batch):
    """The benchmark's timed loop: every batch through the compiled function."""
    def extract():
        for batch in batches:
            extract_batch(batch)                         # on a CPU, a Theano call returns when it has run
    return extract


# %% tags=["variants"]
inputs = T.tensor4("inputs")
v1, v1_5 = (theano.function([inputs], resnet50(inputs, v1_5=flag)) for flag in (False, True))
features_v1, features_v1_5 = v1(check), v1_5(check)
print("same feature shape:", features_v1.shape == features_v1_5.shape,
      f"- largest relative difference between them: "
      f"{float(abs(features_v1 - features_v1_5).max() / abs(features_v1_5).max()):.2f}")

# %% tags=["measure"]
lesson.compare(hp, {"v1_5": extractor(v1_5), "v1": extractor(v1)})
