# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Theano'
#     language: python
#     name: rosetta-theano
# ---

# %% [markdown]
# # ResNet-50 features with Theano
# Theano has no model zoo, so the network is written out here as a symbolic graph: ResNet-50 "v1",
# like Keras' and Gluon's zoos, cut after global average pooling, with **seeded random weights**
# (He-normal kernels) whatever `ROSETTA_WEIGHTS` says. Random weights time the same.

# %% tags=["setup"]
# [imports]
import numpy as np
import theano
import theano.tensor as T
from theano.tensor.nnet.bn import batch_normalization_test
from theano.tensor.signal.pool import pool_2d

from rosetta import report, settings
from rosetta.data import random_images
from rosetta.report import note

# [seeds]
hp = settings("resnet50_features")
rng = np.random.default_rng(hp.seed)                     # seeded initial weights
# [device]
floatX = theano.config.floatX                            # float32, set in THEANO_FLAGS
print(f"Theano {theano.__version__} on {theano.config.device}, floatX {floatX}, profile {hp.profile}, "
      "random weights (no Theano model zoo)")

# %% tags=["data"]
# Channels first (N, 3, 224, 224): the layout of Theano's conv2d.
images = random_images.load(hp, layout="NCHW")
batches = [images[i:i + hp.batch_size] for i in range(0, len(images), hp.batch_size)]
print(len(batches), "batches of", batches[0].shape)

# %% tags=["model"]
# [network]
params = {}                                              # shared variables by torchvision's names


def shared(name, value):
    params[name] = theano.shared(np.asarray(value, floatX), name=name)
    return params[name]


def conv_bn(x, conv_name, bn_name, in_channels, out_channels, size, stride=1):
    """A convolution without bias, then batch normalisation (which has one) in inference form."""
    std = np.sqrt(2 / (size * size * out_channels))      # He-normal over fan-out: torchvision's random init
    kernel = shared(f"{conv_name}.weight", rng.normal(0, std, (out_channels, in_channels, size, size)))
    # border_mode="half": zero padding size // 2. filter_flip=False: a cross-correlation, as in every zoo
    # (Theano's conv2d flips the kernel by default, a true convolution).
    x = T.nnet.conv2d(x, kernel, subsample=(stride, stride), border_mode="half", filter_flip=False)
    # A fresh batch norm: scale 1, offset 0, running mean 0 and variance 1 (zoo weights would replace them).
    # The running statistics, not the batch's. ε = 1.001e-5, as in Keras' zoo and for the same reason:
    # Theano (like cuDNN) refuses ε < 1e-5, and 1e-5 itself rounds below that in float32.
    ones, zeros = np.ones(out_channels), np.zeros(out_channels)
    scale, offset = shared(f"{bn_name}.weight", ones), shared(f"{bn_name}.bias", zeros)
    mean, var = shared(f"{bn_name}.running_mean", zeros), shared(f"{bn_name}.running_var", ones)
    return batch_normalization_test(x, scale, offset, mean, var, axes="spatial", epsilon=1.001e-5)


def bottleneck(x, prefix, in_channels, width, stride):
    # "v1": the stride 2 of a downsampling block sits in the first 1x1 convolution.
    y = T.nnet.relu(conv_bn(x, f"{prefix}.conv1", f"{prefix}.bn1", in_channels, width, 1, stride))
    y = T.nnet.relu(conv_bn(y, f"{prefix}.conv2", f"{prefix}.bn2", width, width, 3))
    y = conv_bn(y, f"{prefix}.conv3", f"{prefix}.bn3", width, 4 * width, 1)
    if in_channels != 4 * width:                         # a stage's first block projects the shortcut
        x = conv_bn(x, f"{prefix}.downsample.0", f"{prefix}.downsample.1", in_channels, 4 * width, 1, stride)
    return T.nnet.relu(y + x)


def resnet50(x):
    x = T.nnet.relu(conv_bn(x, "conv1", "bn1", 3, 64, 7, stride=2))
    x = pool_2d(x, ws=(3, 3), stride=(2, 2), pad=(1, 1), ignore_border=True)   # Keras' and Gluon's windows
    channels = 64
    for stage, (width, blocks, stride) in enumerate(((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)), 1):
        for block in range(blocks):
            x = bottleneck(x, f"layer{stage}.{block}", channels, width, stride if block == 0 else 1)
            channels = 4 * width
    return x.mean(axis=(2, 3))                           # global average pooling: (N, 2048)


inputs = T.tensor4("inputs")                             # symbolic: float32 (N, 3, 224, 224)
# [warm-up] theano.function optimises the graph and compiles it to C with g++: tens of seconds the first time
# (cached in base_compiledir afterwards). Nothing asks for gradients, so none are computed.
extract = theano.function([inputs], resnet50(inputs))
note(weights=f"random weights (seeded, seed {hp.seed}, He-normal): Theano has no ImageNet model zoo")
warm = extract(batches[0])                               # warm-up: the first call allocates the buffers
print(sum(p.get_value().size for p in params.values()), "parameters; features", warm.shape)

# %% tags=["infer"]
features = np.concatenate([extract(batch) for batch in batches[1:]])   # returns when the work is done
print("features", features.shape)
report(images=features.shape[0], feature_size=features.shape[1])
