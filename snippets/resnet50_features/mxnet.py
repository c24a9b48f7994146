# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # ResNet-50 features with MXNet Gluon
# The Gluon model zoo's `resnet50_v1`: its `features` block ends with global average pooling.

# %% tags=["setup"]
# [imports]
import os

import mxnet as mx
from mxnet.gluon import nn
from mxnet.gluon.model_zoo import vision

from rosetta import report, settings
from rosetta.data import random_images

# [seeds]
hp = settings("resnet50_features")
mx.random.seed(hp.seed)
# [device]
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
# float32, not TF32: MXNet has no switch for cuDNN's default; the row's environment sets NVIDIA_TF32_OVERRIDE=0.
# cuDNN autotune is MXNet's default (MXNET_CUDNN_AUTOTUNE_DEFAULT=1).
tf32 = "TF32 off" if os.environ.get("NVIDIA_TF32_OVERRIDE") == "0" else "TF32 allowed"
math_mode = f"float32 ({tf32}), cuDNN autotune on" if ctx.device_type == "gpu" else "float32"
print(f"MXNet {mx.__version__} on {ctx}, {math_mode}, profile {hp.profile}, {hp.weights} weights")

# %% tags=["data"]
images = mx.nd.array(random_images.load(hp, layout="NCHW"), ctx=ctx)   # channels first, in MXNet arrays
batches = [images[i:i + hp.batch_size] for i in range(0, images.shape[0], hp.batch_size)]
print(len(batches), "batches of", batches[0].shape)

# %% tags=["model"]
# [network] resnet50_v1 is "v1" (stride-2 in the first 1x1 conv); resnet50_v2 would be the pre-activation net.
# pretrained=True downloads once into ~/.mxnet/models (offline: ROSETTA_WEIGHTS=random).
zoo_model = vision.resnet50_v1(pretrained=hp.weights == "pretrained", ctx=ctx)
if hp.weights != "pretrained":
    zoo_model.initialize(mx.init.Xavier(), ctx=ctx)
model = nn.HybridSequential()
model.add(zoo_model.features, nn.Flatten())              # (N, 2048, 1, 1) -> (N, 2048)
model.hybridize(static_alloc=True, static_shape=True)    # one compiled graph for the fixed batch shape

# [warm-up] Outside autograd.record() Gluon is in inference mode: batch-norm uses its running statistics.
warm = model(batches[0])                                 # warm-up: builds the graph for the timed batch shape
mx.nd.waitall()
print("features", warm.shape)

# %% tags=["infer"]
features = mx.nd.concat(*[model(batch) for batch in batches[1:]], dim=0)
mx.nd.waitall()                                          # MXNet is asynchronous: wait before the clock stops
print("features", features.shape)
report(images=features.shape[0], feature_size=features.shape[1])
