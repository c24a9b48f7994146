# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # The CNN's training step, as written and tuned, in PyTorch

# %% tags=["setup"]
import copy
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("tuned_cnn")
torch.manual_seed(hp.seed)
rng = np.random.default_rng(hp.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.backends.cudnn.benchmark = True                    # as in the snippet: on a GPU, cuDNN picks its kernels
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = torch.from_numpy(x_train).to(device), torch.from_numpy(y_train).long().to(device)
# torch.get_num_threads() is already the number of cores (2 here): the guide's thread settings change nothing.
print(f"PyTorch {torch.__version__} on {device}, {torch.get_num_threads()} CPU threads")


class VGGish(nn.Module):
    """The CNN benchmark's network, copied from its snippet."""

    def __init__(self, n_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 50, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(50, 50, kernel_size=3, padding=1)
        self.conv3 = nn.Conv2d(50, 100, kernel_size=3, padding=1)
        self.conv4 = nn.Conv2d(100, 100, kernel_size=3, padding=1)
        self.fc1 = nn.Linear(100 * 8 * 8, 512)
        self.fc2 = nn.Linear(512, n_classes)
        for layer in (self.conv1, self.conv2, self.conv3, self.conv4, self.fc1, self.fc2):
            nn.init.xavier_uniform_(layer.weight)
            nn.init.zeros_(layer.bias)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(F.max_pool2d(self.conv2(x), 2))
        x = F.dropout(x, hp.dropout_conv, training=self.training)
        x = F.relu(self.conv3(x))
        x = F.relu(F.max_pool2d(self.conv4(x), 2))
        x = F.dropout(x, hp.dropout_conv, training=self.training)
        x = F.relu(self.fc1(torch.flatten(x, 1)))
        x = F.dropout(x, hp.dropout_dense, training=self.training)
        return self.fc2(x)


def trainer(model, images):
    """The snippet's training loop, for `batches` steps per call."""
    optimizer = torch.optim.SGD(model.parameters(), lr=hp.learning_rate, momentum=hp.momentum)
    loss_fn = nn.CrossEntropyLoss()
    model.train()

    def train():
        order = torch.from_numpy(rng.permutation(len(images))).to(device)
        for i in range(hp.batches):
            rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
            optimizer.zero_grad()
            loss = loss_fn(model(images[rows]), y_train[rows])
            loss.backward()
            optimizer.step()
        loss.item()                                      # waits for the GPU, if there is one
    return train


first = VGGish().to(device)                              # the same starting weights in every variant


# %% tags=["variants"]
variants = {"as_written": trainer(first, x_train)}

# Channels-last: the model's weights and the images stored NHWC, which oneDNN's CPU convolutions
# (and cuDNN's tensor-core kernels) work in.
variants["channels_last"] = trainer(copy.deepcopy(first).to(memory_format=torch.channels_last),
                                    x_train.contiguous(memory_format=torch.channels_last))

# torch.compile: TorchDynamo captures forward and backward, Inductor fuses the pointwise ops into
# generated code (C++ on a CPU, Triton on a GPU). The compilation happens in the first call,
# which the timed rounds leave out. (torch_compile_backend = "" in lesson.toml leaves it out.)
if hp.torch_compile_backend:
    variants["compiled"] = trainer(torch.compile(copy.deepcopy(first), backend=hp.torch_compile_backend), x_train)

# %% tags=["measure"]
first_call = {}                                          # the first call, compilation included, timed once
for name, train in variants.items():
    started = time.perf_counter()
    train()
    first_call[name] = {"first_call_seconds": time.perf_counter() - started}
lesson.compare(hp, variants, facts=first_call)
