"""Plain-script twin of snippets/resnet50_features/jax.py: the same Flax NNX ResNet-50 v1 (seeded random
weights: Flax has no model zoo), its features timed after one warm-up batch."""
import json
import time

import jax
import jax.numpy as jnp
from flax import nnx

from rosetta import settings
from rosetta.data import random_images

hp = settings("resnet50_features")

images = jax.device_put(random_images.load(hp, layout="NHWC"))
warm_up, *timed = [images[i:i + hp.batch_size] for i in range(0, len(images), hp.batch_size)]

he_normal = nnx.initializers.variance_scaling(2.0, "fan_out", "normal")


def conv(in_channels, out_channels, size, stride, rngs):
    return nnx.Conv(in_channels, out_channels, (size, size), strides=stride, padding=size // 2,
                    use_bias=False, kernel_init=he_normal, rngs=rngs)


def conv_bn(in_channels, out_channels, size, stride, rngs):
    return nnx.Sequential(conv(in_channels, out_channels, size, stride, rngs),
                          nnx.BatchNorm(out_channels, epsilon=1e-5, rngs=rngs))


class Bottleneck(nnx.Module):                          # v1: the stride in the first 1x1 convolution
    def __init__(self, in_channels, width, stride, rngs):
        self.body = nnx.Sequential(conv_bn(in_channels, width, 1, stride, rngs), nnx.relu,
                                   conv_bn(width, width, 3, 1, rngs), nnx.relu,
                                   conv_bn(width, 4 * width, 1, 1, rngs))
        self.downsample = conv_bn(in_channels, 4 * width, 1, stride, rngs) if in_channels != 4 * width else None

    def __call__(self, x):
        return nnx.relu(self.body(x) + (x if self.downsample is None else self.downsample(x)))


rngs = nnx.Rngs(params=hp.seed)
layers = [conv_bn(3, 64, 7, 2, rngs), nnx.relu,
          lambda x: nnx.max_pool(x, (3, 3), strides=(2, 2), padding=((1, 1), (1, 1)))]
channels = 64
for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
    layers += [Bottleneck(channels, width, stride, rngs)] + [Bottleneck(4 * width, width, 1, rngs)
                                                            for _ in range(blocks - 1)]
    channels = 4 * width
layers.append(lambda x: x.mean(axis=(1, 2)))
model = nnx.Sequential(*layers)
model.eval()                                           # batch norm: running statistics


@nnx.jit
def extract(model, batch):
    return model(batch)


extract(model, warm_up).block_until_ready()            # compiles; must not run into the timed part
started = time.perf_counter()
features = jnp.concatenate([extract(model, batch) for batch in timed]).block_until_ready()
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": features.shape[0]}))
