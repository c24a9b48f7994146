"""Plain-script twin of snippets/cnn_cifar10/pytorch.py: the same VGG-style CNN, its training loop timed."""
import json
import time

import numpy as np
import torch
from torch import nn

from rosetta import settings
from rosetta.data import cifar10

hp = settings("cnn_cifar10")
torch.manual_seed(hp.seed)
rng = np.random.default_rng(hp.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.backends.cudnn.benchmark = True

x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = torch.from_numpy(x_train).to(device), torch.from_numpy(y_train).long().to(device)

model = nn.Sequential(
    nn.Conv2d(3, 50, 3, padding=1), nn.ReLU(),
    nn.Conv2d(50, 50, 3, padding=1), nn.MaxPool2d(2), nn.ReLU(), nn.Dropout(hp.dropout_conv),
    nn.Conv2d(50, 100, 3, padding=1), nn.ReLU(),
    nn.Conv2d(100, 100, 3, padding=1), nn.MaxPool2d(2), nn.ReLU(), nn.Dropout(hp.dropout_conv),
    nn.Flatten(), nn.Linear(100 * 8 * 8, 512), nn.ReLU(), nn.Dropout(hp.dropout_dense),
    nn.Linear(512, 10),
)
for layer in model:                               # Glorot-uniform, zero biases (the snippet's init), on the CPU
    if isinstance(layer, (nn.Conv2d, nn.Linear)):
        nn.init.xavier_uniform_(layer.weight)
        nn.init.zeros_(layer.bias)
model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=hp.learning_rate, momentum=hp.momentum)
loss_fn = nn.CrossEntropyLoss()

model.train()
shuffle = getattr(hp, "shuffle", True)      # a new order every epoch; the equivalence checks turn it off
n_batches = len(x_train) // hp.batch_size
started = time.perf_counter()
for _ in range(hp.epochs):
    order = torch.from_numpy(rng.permutation(len(x_train)) if shuffle else np.arange(len(x_train))).to(device)
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        optimizer.zero_grad()
        loss = loss_fn(model(x_train[rows]), y_train[rows])
        loss.backward()
        optimizer.step()
if device.type == "cuda":
    torch.cuda.synchronize()
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": hp.epochs * n_batches * hp.batch_size}))
