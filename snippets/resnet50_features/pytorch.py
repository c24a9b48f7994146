# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # ResNet-50 features with PyTorch
# torchvision's ResNet-50, cut after global average pooling: one 2048-d vector per image.

# %% tags=["setup"]
# [imports]
import torch
import torchvision

from rosetta import report, settings
from rosetta.data import random_images

# [seeds]
hp = settings("resnet50_features")
torch.manual_seed(hp.seed)
# [device]
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.backends.cudnn.benchmark = True                    # fixed input shape: let cuDNN pick its algorithms
torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False   # float32, not TF32 (cuDNN's default)
math_mode = "float32 (TF32 off), cuDNN autotune on" if device.type == "cuda" else "float32"
print(f"PyTorch {torch.__version__}, torchvision {torchvision.__version__} on {device}, {math_mode}, "
      f"profile {hp.profile}, {hp.weights} weights")

# %% tags=["data"]
images = torch.from_numpy(random_images.load(hp, layout="NCHW")).to(device)   # channels first
batches = images.split(hp.batch_size)                    # batch 0 warms up, the rest are timed
print(len(batches), "batches of", tuple(batches[0].shape))

# %% tags=["model"]
# [network] torchvision's ResNet-50 is "v1.5": the stride-2 of each downsampling block sits in the 3x3 conv.
# The pretrained weights download once into ~/.cache/torch (offline: ROSETTA_WEIGHTS=random).
weights = torchvision.models.ResNet50_Weights.IMAGENET1K_V1 if hp.weights == "pretrained" else None
model = torchvision.models.resnet50(weights=weights)
model.fc = torch.nn.Identity()                           # drop the classifier: keep the pooled features
model = model.to(device).eval()                          # eval(): batch-norm uses its running statistics

# [warm-up]
with torch.inference_mode():                             # no autograd bookkeeping at all
    warm = model(batches[0])                             # warm-up: the timed batches' shape, run once
print("features", tuple(warm.shape))

# %% tags=["infer"]
with torch.inference_mode():
    features = torch.cat([model(batch) for batch in batches[1:]])
    if device.type == "cuda":
        torch.cuda.synchronize()                         # the GPU works asynchronously: wait for it
print("features", tuple(features.shape))
report(images=features.shape[0], feature_size=features.shape[1])
