# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # ResNet-50 v1 against v1.5, in PaddlePaddle
# `paddle.vision`'s ResNet-50 is v1.5, like torchvision's; here v1 is made from it by moving the strides.
# Paddle's FLOP counter (`paddle.flops`) fails in this version with NumPy 2 (its table reads each layer's
# one-element count with `int()`): the FLOPs are PyTorch's tab's.

# %% tags=["setup"]
import copy
import os

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import paddle

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("resnet_v1_vs_v15")
paddle.seed(hp.seed)
device = paddle.set_device("gpu" if paddle.device.cuda.device_count() else "cpu")   # new tensors go there
if not device.is_cpu_place():
    paddle.set_flags({"FLAGS_cudnn_exhaustive_search": True})   # as the snippet: on a GPU, cuDNN picks its kernels
images = paddle.to_tensor(random_images.load(hp, layout="NCHW"))
check, *batches = paddle.split(images, len(images) // hp.batch_size)   # the first batch is looked at, the rest timed
v1_5 = paddle.vision.models.resnet50(pretrained=False)   # random weights: nothing is downloaded here
v1_5.fc = paddle.nn.Identity()                           # the benchmark's features: pooled, 2048 per image
v1_5.eval()                                              # eval(): batch-norm uses its running statistics


def extractor(model):
    """The benchmark's timed loop: every batch through the model, no autograd bookkeeping."""
    def extract():
        with paddle.no_grad():
            for batch in batches:
                model(batch)
        if not device.is_cpu_place():
            paddle.device.synchronize()                  # the GPU works asynchronously: wait for it
    return extract


# %% tags=["variants"]
# paddle.vision's BottleneckBlock puts the stride of a downsampling block (the first block of layer2,
# layer3 and layer4) in conv2, the 3×3 convolution ("v1.5"): conv1, the 1×1 before it, runs on the
# full-size map. The original ResNet, and Keras', Gluon's and Chainer's, put it in conv1 ("v1"): that
# 1×1 convolution then skips three quarters of its input positions. A Conv2D keeps its stride in the
# private list `_stride`, which it reads at every call.
v1 = copy.deepcopy(v1_5)                                 # the same weights
for stage in (v1.layer2, v1.layer3, v1.layer4):
    stage[0].conv1._stride, stage[0].conv2._stride = [2, 2], [1, 1]

# %% tags=["measure"]
with paddle.no_grad():
    features_v1_5, features_v1 = v1_5(check), v1(check)
print("same feature shape:", features_v1.shape == features_v1_5.shape,
      f"- largest relative difference between them: "
      f"{((features_v1 - features_v1_5).abs().max() / features_v1_5.abs().max()).item():.2f}")
lesson.compare(hp, {"v1_5": extractor(v1_5), "v1": extractor(v1)})
