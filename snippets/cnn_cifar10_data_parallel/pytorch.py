# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # Data-parallel CNN on CIFAR-10 with PyTorch
# `DistributedDataParallel`: one process per worker, each with a whole copy of the model; during
# `backward()` it averages the gradients over the workers (gloo on a CPU, NCCL on GPUs), so every copy
# takes the same step. Run it with `torchrun --nproc-per-node=2 pytorch.py`.

# %% tags=["setup"]
# [imports]
import os

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

from rosetta import report, settings
from rosetta.data import cifar10

# [workers] torchrun starts each worker with RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT set: env:// reads them.
dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
rank, workers = dist.get_rank(), dist.get_world_size()
# [seeds] The same seeds in every worker: the same starting weights and the same batch order.
hp = settings("cnn_cifar10_data_parallel")
torch.manual_seed(hp.seed)
rng = np.random.default_rng(hp.seed)
# [device] One GPU per worker (LOCAL_RANK: this worker's number on its machine), or the CPU.
device = torch.device(f"cuda:{os.environ['LOCAL_RANK']}" if torch.cuda.is_available() else "cpu")
torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False   # float32, not TF32
print(f"PyTorch {torch.__version__}, worker {rank} of {workers} on {device}, {dist.get_backend()}, "
      f"profile {hp.profile}")

# %% tags=["data"]
# Every worker holds the data set; each trains on its share of every batch.
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
x_train, x_test = torch.from_numpy(x_train).to(device), torch.from_numpy(x_test).to(device)
y_train, y_test = torch.from_numpy(y_train).long().to(device), torch.from_numpy(y_test).long().to(device)
share = hp.batch_size // workers                # this worker's rows of each batch of batch_size
print("train", tuple(x_train.shape), "test", tuple(x_test.shape), f"{share} images a step per worker")


# %% tags=["model"]
# [network]
class VGGish(nn.Module):
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


# DistributedDataParallel broadcasts rank 0's weights to the others once, then all-reduces the gradients.
model = DistributedDataParallel(VGGish().to(device))
# [optimizer] Each worker steps its own copy, with the averaged gradients: the copies stay equal.
optimizer = torch.optim.SGD(model.parameters(), lr=hp.learning_rate, momentum=hp.momentum)
# [loss]
loss_fn = nn.CrossEntropyLoss()                 # the mean over this worker's share; averaged over the workers
print(sum(p.numel() for p in model.parameters()), "parameters in every worker")

# %% tags=["train"]
# [batches]
model.train()
n_batches = len(x_train) // hp.batch_size
for epoch in range(hp.epochs):
    order = rng.permutation(len(x_train)) if hp.shuffle else np.arange(len(x_train))   # the same in every worker
    order = torch.from_numpy(order).to(device)
    for i in range(n_batches):
        # This worker's rows of the batch, interleaved as DistributedSampler deals them out.
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size][rank::workers]
        # [training-step]
        optimizer.zero_grad()
        loss = loss_fn(model(x_train[rows]), y_train[rows])
        loss.backward()                         # the gradients' all-reduce overlaps the backward pass
        optimizer.step()
    # [progress]
    print(f"epoch {epoch + 1}: worker {rank}'s last loss {loss.item():.3f}")

# %% tags=["infer"]
# [predictions] Each worker predicts its share of the test set.
model.eval()
with torch.no_grad():
    mine = torch.cat([model(batch).argmax(1) for batch in x_test[rank::workers].split(hp.batch_size)])
# [accuracy] The correct predictions, summed over the workers.
correct = (mine == y_test[rank::workers]).sum()
dist.all_reduce(correct)
accuracy = correct.item() / len(y_test)
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size)
dist.destroy_process_group()
