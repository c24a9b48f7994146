# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # No gradient to the input, in PyTorch

# %% tags=["setup"]
import torch
import torch.nn as nn
import torch.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("input_gradient")
torch.manual_seed(hp.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = torch.from_numpy(x_train).to(device), torch.from_numpy(y_train).long().to(device)
model = nn.Sequential(                                   # the CNN benchmark's network, without dropout
    nn.Conv2d(3, 50, 3, padding=1), nn.ReLU(), nn.Conv2d(50, 50, 3, padding=1), nn.MaxPool2d(2), nn.ReLU(),
    nn.Conv2d(50, 100, 3, padding=1), nn.ReLU(), nn.Conv2d(100, 100, 3, padding=1), nn.MaxPool2d(2), nn.ReLU(),
    nn.Flatten(), nn.Linear(100 * 8 * 8, 512), nn.ReLU(), nn.Linear(512, 10)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=hp.learning_rate, momentum=hp.momentum)


def trainer(images_for):
    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            images = images_for(x_train[rows])
            optimizer.zero_grad()
            loss = F.cross_entropy(model(images), y_train[rows])
            loss.backward()                              # fills images.grad too, where it was asked for
            optimizer.step()
        loss.item()                                      # waits for the GPU, if there is one
    return train


# %% tags=["variants"]
def as_they_are(images):
    return images                                        # requires_grad=False: autograd stops at the first layer


def asking_for_their_gradient(images):
    return images.detach().requires_grad_()              # what a saliency map or an adversarial example needs


# %% tags=["measure"]
lesson.compare(hp, {"no_input_gradient": trainer(as_they_are), "input_gradient": trainer(asking_for_their_gradient)})
