# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # Batch normalisation at inference, in PyTorch

# %% tags=["setup"]
import copy

import torch
import torchvision

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("batchnorm_inference")
torch.manual_seed(hp.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
images = torch.from_numpy(random_images.load(hp, layout="NCHW")).to(device)
check, *batches = images.split(hp.batch_size)           # the first batch checks, the others are timed
model = torchvision.models.resnet50(weights=None)        # random weights: nothing is downloaded here
model.fc = torch.nn.Identity()                           # the benchmark's features: pooled, 2048 per image
model = model.to(device)
# Running statistics as training leaves them: batches through the model in training mode, which updates them.
with torch.no_grad():
    model.train()
    for _ in range(hp.calibration):
        model(torch.randn_like(check))
model.eval()


# %% tags=["variants"]
def features(net, batch):
    with torch.inference_mode():                         # no recording, in both variants
        return net(batch)


def batch_dependence(net):
    """How far one image's features move when the rest of its batch changes: largest difference / largest feature."""
    alone_with = features(net, check)[0]
    with_others = features(net, torch.cat([check[:1], batches[0][1:]]))[0]
    return float((alone_with - with_others).abs().max() / alone_with.abs().max())


in_training_mode = copy.deepcopy(model).train()          # a copy: in training mode, every call updates the statistics
dependence = {"inference_mode": batch_dependence(model), "training_mode": batch_dependence(in_training_mode)}
print("largest relative change of one image's features with other batch-mates:", dependence)


def extractor(net):
    def extract():
        for batch in batches:
            features(net, batch)
        if device.type == "cuda":
            torch.cuda.synchronize()                     # the GPU works asynchronously: wait for it
    return extract


# %% tags=["measure"]
lesson.compare(hp, {"inference_mode": extractor(model), "training_mode": extractor(in_training_mode)},
               facts={name: {"batch_dependence": value} for name, value in dependence.items()})
