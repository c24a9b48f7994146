# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # ResNet-50 v1 against v1.5, in PyTorch

# %% tags=["setup"]
import copy

import torch
import torchvision
from torch.utils.flop_counter import FlopCounterMode

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("resnet_v1_vs_v15")
torch.manual_seed(hp.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.backends.cudnn.benchmark = True                    # as in the snippet: on a GPU, cuDNN picks its kernels
images = torch.from_numpy(random_images.load(hp, layout="NCHW")).to(device)
check, *batches = images.split(hp.batch_size)           # the first batch is looked at, the rest are timed
v1_5 = torchvision.models.resnet50(weights=None)         # random weights: nothing is downloaded here
v1_5.fc = torch.nn.Identity()                            # the benchmark's features: pooled, 2048 per image
v1_5 = v1_5.to(device).eval()                            # eval(): batch-norm uses its running statistics


def extractor(model):
    """The benchmark's timed loop: every batch through the model, no autograd bookkeeping."""
    def extract():
        with torch.inference_mode():
            for batch in batches:
                model(batch)
        if device.type == "cuda":
            torch.cuda.synchronize()                     # the GPU works asynchronously: wait for it
    return extract


# %% tags=["variants"]
# torchvision's Bottleneck puts the stride of a downsampling block (the first block of layer2,
# layer3 and layer4) in conv2, the 3×3 convolution ("v1.5"): conv1, the 1×1 before it, runs on
# the full-size map. The original ResNet, and Keras', Gluon's and Chainer's, put it in conv1
# ("v1"): that 1×1 convolution then skips three quarters of its input positions.
v1 = copy.deepcopy(v1_5)                                 # the same weights
for stage in (v1.layer2, v1.layer3, v1.layer4):
    stage[0].conv1.stride, stage[0].conv2.stride = (2, 2), (1, 1)

# %% tags=["measure"]
facts = {}
with torch.inference_mode():
    for name, model in {"v1_5": v1_5, "v1": v1}.items():
        with FlopCounterMode(display=False) as counter:  # counts each multiply-add as 2 FLOPs
            model(check[:1])
        facts[name] = {"gflops_per_image": counter.get_total_flops() / 1e9}
    features_v1_5, features_v1 = v1_5(check), v1(check)
print("same feature shape:", tuple(features_v1.shape) == tuple(features_v1_5.shape),
      f"- largest relative difference between them: "
      f"{((features_v1 - features_v1_5).abs().max() / features_v1_5.abs().max()).item():.2f}")
lesson.compare(hp, {"v1_5": extractor(v1_5), "v1": extractor(v1)}, facts=facts)
