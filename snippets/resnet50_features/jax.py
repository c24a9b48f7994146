# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: JAX'
#     language: python
#     name: rosetta-jax
# ---

# %% [markdown]
# # ResNet-50 features with JAX (Flax NNX)
# Flax has no model zoo with ImageNet weights, so the network is written out here: ResNet-50
# "v1", like Keras' and Gluon's zoos, cut after global average pooling, with **seeded random
# weights** (He-normal kernels) whatever `ROSETTA_WEIGHTS` says. Random weights time the same.

# %% tags=["setup"]
# [imports]
import flax
import jax
import jax.numpy as jnp
from flax import nnx

from rosetta import report, settings
from rosetta.data import random_images
from rosetta.report import note

# [seeds] none drawn here: the model step seeds the weights (nnx.Rngs)
hp = settings("resnet50_features")
# [device]
device = jax.devices()[0]
jax.config.update("jax_default_matmul_precision", "highest")   # float32, not TF32 (XLA's default on a GPU)
math_mode = "float32 (TF32 off), XLA autotune on" if device.platform == "gpu" else "float32"
print(f"JAX {jax.__version__}, Flax {flax.__version__} on {device.platform}, {math_mode}, channels last, "
      f"profile {hp.profile}, random weights (no Flax model zoo)")

# %% tags=["data"]
# Channels last (N, 224, 224, 3): Flax's native layout (on a GPU, XLA picks the layout cuDNN wants).
images = jax.device_put(random_images.load(hp, layout="NHWC"))
batches = [images[i:i + hp.batch_size] for i in range(0, len(images), hp.batch_size)]
print(len(batches), "batches of", batches[0].shape)

# %% tags=["model"]
# [network]
he_normal = nnx.initializers.variance_scaling(2.0, "fan_out", "normal")   # torchvision's random init


def conv(in_channels, out_channels, size, stride, rngs):      # no bias: the batch norm after it has one
    return nnx.Conv(in_channels, out_channels, (size, size), strides=stride, padding=size // 2,
                    use_bias=False, kernel_init=he_normal, rngs=rngs)


def batch_norm(channels, rngs):                               # ε = 1e-5, as PyTorch's and Gluon's zoos
    return nnx.BatchNorm(channels, epsilon=1e-5, rngs=rngs)


class Bottleneck(nnx.Module):
    def __init__(self, in_channels, width, stride, rngs):
        # "v1": the stride 2 of a downsampling block sits in the first 1x1 convolution.
        self.conv1, self.bn1 = conv(in_channels, width, 1, stride, rngs), batch_norm(width, rngs)
        self.conv2, self.bn2 = conv(width, width, 3, 1, rngs), batch_norm(width, rngs)
        self.conv3, self.bn3 = conv(width, 4 * width, 1, 1, rngs), batch_norm(4 * width, rngs)
        # A stage's first block projects the shortcut to the new width (and stride).
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
        for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):   # layer1..layer4
            stages.append(nnx.Sequential(Bottleneck(channels, width, stride, rngs),
                                         *(Bottleneck(4 * width, width, 1, rngs) for _ in range(blocks - 1))))
            channels = 4 * width
        self.stages = nnx.List(stages)

    def __call__(self, x):
        x = nnx.relu(self.bn1(self.conv1(x)))
        x = nnx.max_pool(x, (3, 3), strides=(2, 2), padding=((1, 1), (1, 1)))   # Keras' and Gluon's windows
        for stage in self.stages:
            x = stage(x)
        return x.mean(axis=(1, 2))                              # global average pooling: (N, 2048)


model = ResNet50(nnx.Rngs(params=hp.seed))
model.eval()                                                    # batch norm uses its running statistics
note(weights=f"random weights (seeded, seed {hp.seed}, He-normal): Flax has no ImageNet model zoo")


# [warm-up]
@nnx.jit                                                        # compiled by XLA for each input shape
def extract(model, batch):
    return model(batch)                                         # no gradients: JAX computes them only when asked


warm = extract(model, batches[0]).block_until_ready()          # warm-up: compiles for the timed batches' shape
print("features", warm.shape)

# %% tags=["infer"]
features = jnp.concatenate([extract(model, batch) for batch in batches[1:]])
features.block_until_ready()                                   # JAX dispatches asynchronously: wait for it
print("features", features.shape)
report(images=features.shape[0], feature_size=features.shape[1])
