# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # ResNet-50 features with PaddlePaddle
# `paddle.vision`'s ResNet-50, cut after global average pooling: one 2048-d vector per image.

# %% tags=["setup"]
# [imports]
import os

# Paddle computes on one CPU thread unless OMP_NUM_THREADS says otherwise before it is imported: one per core.
os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))
import paddle

from rosetta import report, settings
from rosetta.data import random_images

# [seeds]
hp = settings("resnet50_features")
paddle.seed(hp.seed)
# [device]
device = paddle.set_device("gpu" if paddle.device.cuda.device_count() else "cpu")
if not device.is_cpu_place():
    paddle.set_flags({"FLAGS_cudnn_exhaustive_search": True})   # fixed input shape: let cuDNN pick its algorithms
# float32, not TF32: Paddle has no switch of its own; the row's environment sets NVIDIA_TF32_OVERRIDE=0.
tf32 = "TF32 off" if os.environ.get("NVIDIA_TF32_OVERRIDE") == "0" else "TF32 allowed"
math_mode = "float32" if device.is_cpu_place() else f"float32 ({tf32}), cuDNN autotune on"
print(f"PaddlePaddle {paddle.__version__} on {device}, {math_mode}, profile {hp.profile}, {hp.weights} weights")

# %% tags=["data"]
images = paddle.to_tensor(random_images.load(hp, layout="NCHW"))   # channels first
batches = paddle.split(images, len(images) // hp.batch_size)       # batch 0 warms up, the rest are timed
print(len(batches), "batches of", tuple(batches[0].shape))

# %% tags=["model"]
# [network] paddle.vision's ResNet-50 is "v1.5", like torchvision's: the stride-2 of each downsampling block
# sits in the 3x3 conv. The pretrained weights download once into ~/.cache/paddle (offline: ROSETTA_WEIGHTS=random).
model = paddle.vision.models.resnet50(pretrained=hp.weights == "pretrained")
model.fc = paddle.nn.Identity()                          # drop the classifier: keep the pooled features
model.eval()                                             # batch-norm uses its running statistics

# [warm-up]
with paddle.no_grad():                                   # no autograd bookkeeping
    warm = model(batches[0])                             # warm-up: the timed batches' shape, run once
print("features", tuple(warm.shape))

# %% tags=["infer"]
with paddle.no_grad():
    features = paddle.concat([model(batch) for batch in batches[1:]])
    if not device.is_cpu_place():
        paddle.device.synchronize()                      # a GPU works asynchronously: wait for it
print("features", tuple(features.shape))
report(images=features.shape[0], feature_size=features.shape[1])
