# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # Data-parallel CNN on CIFAR-10 with PaddlePaddle
# `paddle.DataParallel`: one process per worker, each with a whole copy of the model; during `backward()`
# it averages the gradients over the workers (gloo on a CPU, NCCL on GPUs), so every copy takes the same
# step. Run it with `python -m paddle.distributed.launch --nproc_per_node=2 paddle.py`.

# %% tags=["setup"]
# [imports]
import os

# Paddle computes on one CPU thread unless OMP_NUM_THREADS says otherwise before it is imported: one per core.
os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))
import numpy as np
import paddle
import paddle.distributed as dist
import paddle.nn as nn
import paddle.nn.functional as F

from rosetta import report, settings
from rosetta.data import cifar10

# [workers] Paddle's launcher starts each worker with PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM and PADDLE_MASTER set.
dist.init_parallel_env()
rank, workers = dist.get_rank(), dist.get_world_size()
# [seeds] The same seeds in every worker: the same starting weights and the same batch order.
hp = settings("cnn_cifar10_data_parallel")
paddle.seed(hp.seed)
rng = np.random.default_rng(hp.seed)
# [device] One GPU per worker (the launcher picks it), or the CPU.
device = paddle.get_device()
if device != "cpu":
    paddle.set_flags({"FLAGS_cudnn_exhaustive_search": True})   # cuDNN autotune (Paddle's default is off)
print(f"PaddlePaddle {paddle.__version__}, worker {rank} of {workers} on {device}, "
      f"{os.environ.get('PADDLE_DISTRI_BACKEND', 'nccl')}, profile {hp.profile}")

# %% tags=["data"]
# Every worker holds the data set; each trains on its share of every batch.
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
x_train, x_test = paddle.to_tensor(x_train), paddle.to_tensor(x_test)
y_train, y_test = paddle.to_tensor(y_train, dtype="int64"), paddle.to_tensor(y_test, dtype="int64")
share = hp.batch_size // workers                # this worker's rows of each batch of batch_size
print("train", tuple(x_train.shape), "test", tuple(x_test.shape), f"{share} images a step per worker")


# %% tags=["model"]
# [network]
def glorot():
    return {"weight_attr": nn.initializer.XavierUniform(), "bias_attr": nn.initializer.Constant(0.0)}


class VGGish(nn.Layer):
    def __init__(self, n_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2D(3, 50, kernel_size=3, padding=1, **glorot())
        self.conv2 = nn.Conv2D(50, 50, kernel_size=3, padding=1, **glorot())
        self.conv3 = nn.Conv2D(50, 100, kernel_size=3, padding=1, **glorot())
        self.conv4 = nn.Conv2D(100, 100, kernel_size=3, padding=1, **glorot())
        self.fc1 = nn.Linear(100 * 8 * 8, 512, **glorot())
        self.fc2 = nn.Linear(512, n_classes, **glorot())

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(F.max_pool2d(self.conv2(x), 2))
        x = F.dropout(x, hp.dropout_conv, training=self.training)
        x = F.relu(self.conv3(x))
        x = F.relu(F.max_pool2d(self.conv4(x), 2))
        x = F.dropout(x, hp.dropout_conv, training=self.training)
        x = F.relu(self.fc1(paddle.flatten(x, 1)))
        x = F.dropout(x, hp.dropout_dense, training=self.training)
        return self.fc2(x)


# paddle.DataParallel broadcasts rank 0's weights to the others once, then all-reduces the gradients.
model = paddle.DataParallel(VGGish())
# [optimizer] Each worker steps its own copy, with the averaged gradients: the copies stay equal.
optimizer = paddle.optimizer.Momentum(learning_rate=hp.learning_rate, momentum=hp.momentum,
                                      parameters=model.parameters())
# [loss]
loss_fn = nn.CrossEntropyLoss()                 # the mean over this worker's share; averaged over the workers
print(sum(int(p.numel()) for p in model.parameters()), "parameters in every worker")

# %% tags=["train"]
# [batches]
model.train()
n_batches = len(x_train) // hp.batch_size
for epoch in range(hp.epochs):
    order = rng.permutation(len(x_train)) if hp.shuffle else np.arange(len(x_train))   # the same in every worker
    order = paddle.to_tensor(order)
    for i in range(n_batches):
        # This worker's rows of the batch, interleaved as DistributedBatchSampler deals them out.
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size][rank::workers]
        # [training-step]
        loss = loss_fn(model(x_train[rows]), y_train[rows])
        loss.backward()                         # the gradients' all-reduce overlaps the backward pass
        optimizer.step()
        optimizer.clear_grad()
    # [progress]
    print(f"epoch {epoch + 1}: worker {rank}'s last loss {loss.item():.3f}")

# %% tags=["infer"]
# [predictions] Each worker predicts its share of the test set.
model.eval()
mine_x, mine_y = x_test[rank::workers], y_test[rank::workers]
with paddle.no_grad():
    mine = paddle.concat([model(mine_x[i:i + hp.batch_size]).argmax(1) for i in range(0, len(mine_x), hp.batch_size)])
# [accuracy] The correct predictions, summed over the workers.
correct = (mine == mine_y).astype("int64").sum()
if workers > 1:                                 # Paddle makes no process group for a single worker
    dist.all_reduce(correct)
accuracy = correct.item() / len(y_test)
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size)
if workers > 1:
    dist.destroy_process_group()
