# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: JAX'
#     language: python
#     name: rosetta-jax
# ---

# %% [markdown]
# # Batch normalisation at inference, in JAX (Flax NNX)
# Flax has no model zoo: the network is the ResNet-50 benchmark's snippet's, copied. Its
# `nnx.BatchNorm` layers follow the model's mode: `model.train()` (batch statistics, running ones
# updated) or `model.eval()` (the stored running statistics), as PyTorch's modules do.

# %% tags=["setup"]
import jax
import jax.numpy as jnp
from flax import nnx

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("batchnorm_inference")
jax.config.update("jax_default_matmul_precision", "highest")   # float32, as the snippet
images = jnp.asarray(random_images.load(hp, layout="NHWC"))     # channels last: Flax's layout
check, *batches = [images[i:i + hp.batch_size] for i in range(0, len(images), hp.batch_size)]
he_normal = nnx.initializers.variance_scaling(2.0, "fan_out", "normal")


def conv(in_channels, out_channels, size, stride, rngs):
    return nnx.Conv(in_channels, out_channels, (size, size), strides=stride, padding=size // 2,
                    use_bias=False, kernel_init=he_normal, rngs=rngs)


def batch_norm(channels, rngs):
    return nnx.BatchNorm(channels, epsilon=1e-5, rngs=rngs)


class Bottleneck(nnx.Module):
    def __init__(self, in_channels, width, stride, rngs):
        self.conv1, self.bn1 = conv(in_channels, width, 1, stride, rngs), batch_norm(width, rngs)
        self.conv2, self.bn2 = conv(width, width, 3, 1, rngs), batch_norm(width, rngs)
        self.conv3, self.bn3 = conv(width, 4 * width, 1, 1, rngs), batch_norm(4 * width, rngs)
        self.downsample = nnx.Sequential(conv(in_channels, 4 * width, 1, stride, rngs),
                                         batch_norm(4 * width, rngs)) if in_channels != 4 * width else None

    def __call__(self, x):
        y = nnx.relu(self.bn1(self.conv1(x)))
        y = nnx.relu(self.bn2(self.conv2(y)))
        y = self.bn3(self.conv3(y))
        return nnx.relu(y + (x if self.downsample is None else self.downsample(x)))


class ResNet50(nnx.Module):
    def __init__(self, rngs):
        self.conv1, self.bn1 = conv(3, 64, 7, 2, rngs), batch_norm(64, rngs)
        stages, channels = [], 64
        for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
            stages.append(nnx.Sequential(Bottleneck(channels, width, stride, rngs),
                                         *(Bottleneck(4 * width, width, 1, rngs) for _ in range(blocks - 1))))
            channels = 4 * width
        self.stages = nnx.List(stages)

    def __call__(self, x):
        x = nnx.relu(self.bn1(self.conv1(x)))
        x = nnx.max_pool(x, (3, 3), strides=(2, 2), padding=((1, 1), (1, 1)))
        for stage in self.stages:
            x = stage(x)
        return x.mean(axis=(1, 2))                              # the benchmark's features: 2048 per image


@nnx.jit                                                        # compiled once per mode and input shape
def features(model, batch):
    return model(batch)                                         # in training mode, also updates the statistics


model = ResNet50(nnx.Rngs(params=hp.seed))
# Running statistics as training leaves them: batches through the model in training mode, which updates them.
model.train()
noise = jax.random.normal(jax.random.key(hp.seed + 1), (hp.calibration, *check.shape))
for batch in noise:
    features(model, batch)
model.eval()


# %% tags=["variants"]
def batch_dependence(net):
    """How far one image's features move when the rest of its batch changes: largest difference / largest feature."""
    alone_with = features(net, check)[0]
    with_others = features(net, jnp.concatenate([check[:1], batches[0][1:]]))[0]
    return float(jnp.abs(alone_with - with_others).max() / jnp.abs(alone_with).max())


in_training_mode = nnx.clone(model)                             # a copy: in training mode, every call updates it
in_training_mode.train()
dependence = {"inference_mode": batch_dependence(model), "training_mode": batch_dependence(in_training_mode)}
print("largest relative change of one image's features with other batch-mates:", dependence)


def extractor(net):
    def extract():
        for batch in batches:
            out = features(net, batch)
        out.block_until_ready()                                 # JAX dispatches asynchronously: wait for it
    return extract


# %% tags=["measure"]
lesson.compare(hp, {"inference_mode": extractor(model), "training_mode": extractor(in_training_mode)},
               facts={name: {"batch_dependence": value} for name, value in dependence.items()})
