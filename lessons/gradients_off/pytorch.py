# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # Gradients off for inference, in PyTorch

# %% tags=["setup"]
import torch
import torch.nn as nn
import torch.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("gradients_off")
torch.manual_seed(hp.seed)
_, _, x_test, _ = cifar10.load(hp, layout="NCHW")
batches = torch.from_numpy(x_test).split(hp.batch_size)


class VGGish(nn.Module):
    """The CNN benchmark's network; its dropout is left out (in inference mode it is the identity)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 50, 3, padding=1)
        self.conv2 = nn.Conv2d(50, 50, 3, padding=1)
        self.conv3 = nn.Conv2d(50, 100, 3, padding=1)
        self.conv4 = nn.Conv2d(100, 100, 3, padding=1)
        self.fc1 = nn.Linear(100 * 8 * 8, 512)
        self.fc2 = nn.Linear(512, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv2(F.relu(self.conv1(x))), 2))
        x = F.relu(F.max_pool2d(self.conv4(F.relu(self.conv3(x))), 2))
        return self.fc2(F.relu(self.fc1(torch.flatten(x, 1))))


model = VGGish().eval()
print("parameters require grad:", all(p.requires_grad for p in model.parameters()))   # the default


# %% tags=["variants"]
def predict():
    # All the test logits, kept until the last batch is done, as code that goes on to an accuracy or a
    # test loss keeps them. While recording, each batch's logits hold on to that batch's graph.
    logits = torch.cat([model(batch) for batch in batches])
    del logits                                   # (what comes next is not part of the lesson)


def gradients_off():
    # Nothing recorded: each activation is freed once used. torch.inference_mode() goes one step
    # further (no version counters or view tracking), at the price of tensors that can never enter
    # a recorded computation later.
    with torch.no_grad():
        predict()


def gradients_on():
    predict()                                    # the plain call records: the parameters require grad


# %% tags=["measure"]
lesson.compare(hp, {"gradients_off": gradients_off, "gradients_on": gradients_on}, memory=True)
