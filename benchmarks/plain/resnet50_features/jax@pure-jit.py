"""Plain-script twin of snippets/resnet50_features/jax.py without Flax: pure functions under jax.jit. The same
ResNet-50 v1 as JAX's own documentation would write it: seeded random parameters in nested lists of dicts
(He-normal kernels, batch-norm statistics at their initial values: Flax has no model zoo), the network a
function, its features timed after one warm-up batch. Beside the Flax NNX twin, it tells what NNX's object
layer costs."""
import json
import time

import jax
import jax.numpy as jnp

from rosetta import settings
from rosetta.data import random_images

hp = settings("resnet50_features")

images = jax.device_put(random_images.load(hp, layout="NHWC"))
warm_up, *timed = [images[i:i + hp.batch_size] for i in range(0, len(images), hp.batch_size)]

he_normal = jax.nn.initializers.variance_scaling(2.0, "fan_out", "normal")
keys = iter(jax.random.split(jax.random.key(hp.seed), 64))


def conv_bn(in_channels, out_channels, size, stride):    # a kernel and batch norm's inference parameters
    return {"kernel": he_normal(next(keys), (size, size, in_channels, out_channels)), "stride": stride,
            "scale": jnp.ones(out_channels), "bias": jnp.zeros(out_channels),
            "mean": jnp.zeros(out_channels), "var": jnp.ones(out_channels)}


def bottleneck(in_channels, width, stride):              # v1: the stride in the first 1x1 convolution
    return {"body": [conv_bn(in_channels, width, 1, stride), conv_bn(width, width, 3, 1),
                     conv_bn(width, 4 * width, 1, 1)],
            "downsample": conv_bn(in_channels, 4 * width, 1, stride) if in_channels != 4 * width else None}


stem, stages, channels = conv_bn(3, 64, 7, 2), [], 64
for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
    stages += [bottleneck(channels, width, stride)] + [bottleneck(4 * width, width, 1) for _ in range(blocks - 1)]
    channels = 4 * width
strides = jax.tree.map(lambda p: p["stride"], (stem, stages), is_leaf=lambda p: isinstance(p, dict) and "stride" in p)
params = jax.tree.map(lambda p: {k: v for k, v in p.items() if k != "stride"}, (stem, stages),
                      is_leaf=lambda p: isinstance(p, dict) and "stride" in p)


def apply_conv_bn(p, stride, x):                         # batch norm with its running statistics
    size = p["kernel"].shape[0]
    y = jax.lax.conv_general_dilated(x, p["kernel"], (stride, stride), [(size // 2, size // 2)] * 2,
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return (y - p["mean"]) * jax.lax.rsqrt(p["var"] + 1e-5) * p["scale"] + p["bias"]


def features(params, x):
    (stem, stages), (stem_stride, stage_strides) = params, strides
    x = jax.nn.relu(apply_conv_bn(stem, stem_stride, x))
    x = jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 3, 3, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (1, 1), (0, 0)))
    for block, block_strides in zip(stages, stage_strides):
        y = x
        for index, (p, stride) in enumerate(zip(block["body"], block_strides["body"])):
            y = apply_conv_bn(p, stride, y)
            y = jax.nn.relu(y) if index < 2 else y
        shortcut = x if block["downsample"] is None else \
            apply_conv_bn(block["downsample"], block_strides["downsample"], x)
        x = jax.nn.relu(y + shortcut)
    return x.mean(axis=(1, 2))


extract = jax.jit(features)
extract(params, warm_up).block_until_ready()             # compiles; must not run into the timed part
started = time.perf_counter()
result = jnp.concatenate([extract(params, batch) for batch in timed]).block_until_ready()
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": result.shape[0]}))
