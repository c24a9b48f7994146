# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # Data-parallel CNN on CIFAR-10 with Chainer and ChainerMN
# ChainerMN (part of Chainer since v7) trains over MPI: one process per worker, each a rank of an MPI
# world that MPI's own launcher makes (`mpiexec -n 2 python chainer.py`), not variables set by hand.
# A multi-node optimizer averages the gradients over the ranks (an all-reduce) before each update.

# %% tags=["setup"]
# [imports]
import os

import chainer
import chainer.functions as F
import chainer.links as L
import chainermn
import numpy as np

from rosetta import report, settings
from rosetta.data import cifar10

# [workers] The communicator is MPI's world: mpiexec tells each process its rank. "naive" all-reduces with MPI
# on the CPU; on GPUs "pure_nccl" does it with NCCL.
try:
    import cupy as xp                                    # arrays on the GPU through CuPy
    comm = chainermn.create_communicator("pure_nccl")
except ImportError:
    xp, comm = np, chainermn.create_communicator("naive")
rank, workers = comm.rank, comm.size
# [seeds] The same seeds in every worker: the same starting weights and the same batch order.
hp = settings("cnn_cifar10_data_parallel")
rng = np.random.default_rng(hp.seed)
np.random.seed(hp.seed)                                  # Chainer's initialisers draw from numpy
# [device] One GPU per worker (intra_rank: this worker's number on its machine), or the CPU.
device = chainer.get_device(f"@cupy:{comm.intra_rank}" if xp is not np else "@numpy")
chainer.config.autotune = True                           # cuDNN autotune (Chainer's default is off)
tf32 = "TF32 off" if os.environ.get("NVIDIA_TF32_OVERRIDE") == "0" else "TF32 allowed"
math_mode = f"float32 ({tf32}), cuDNN autotune on" if xp is not np else "float32"
print(f"Chainer {chainer.__version__}, worker {rank} of {workers} on {device}, {type(comm).__name__}, "
      f"{math_mode}, profile {hp.profile}")

# %% tags=["data"]
# Every worker holds the data set; each trains on its share of every batch.
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
x_train, y_train, x_test, y_test = (device.send(a) for a in (x_train, y_train, x_test, y_test))
share = hp.batch_size // workers
print("train", x_train.shape, "test", x_test.shape, f"{share} images a step per worker")


# %% tags=["model"]
# [network]
class VGGish(chainer.Chain):
    def __init__(self, n_classes=10):
        super().__init__()
        glorot = chainer.initializers.GlorotUniform()   # Chainer's default is LeCun-normal
        with self.init_scope():                          # biases start at 0
            self.conv1 = L.Convolution2D(3, 50, ksize=3, pad=1, initialW=glorot)
            self.conv2 = L.Convolution2D(50, 50, ksize=3, pad=1, initialW=glorot)
            self.conv3 = L.Convolution2D(50, 100, ksize=3, pad=1, initialW=glorot)
            self.conv4 = L.Convolution2D(100, 100, ksize=3, pad=1, initialW=glorot)
            self.fc1 = L.Linear(100 * 8 * 8, 512, initialW=glorot)
            self.fc2 = L.Linear(512, n_classes, initialW=glorot)

    def forward(self, x):
        h = F.relu(self.conv1(x))
        h = F.dropout(F.relu(F.max_pooling_2d(self.conv2(h), 2, 2)), hp.dropout_conv)
        h = F.relu(self.conv3(h))
        h = F.dropout(F.relu(F.max_pooling_2d(self.conv4(h), 2, 2)), hp.dropout_conv)
        h = F.dropout(F.relu(self.fc1(h)), hp.dropout_dense)
        return self.fc2(h)


model = VGGish()
model.to_device(device)
# [optimizer] The multi-node optimizer averages every gradient over the ranks before each update: each worker
# updates its own copy, and the copies stay equal.
optimizer = chainermn.create_multi_node_optimizer(
    chainer.optimizers.MomentumSGD(lr=hp.learning_rate, momentum=hp.momentum), comm)
optimizer.setup(model)
optimizer.update()      # its first update() only sends rank 0's weights to the others (no step): here, not on batch 1
# [loss]
loss_fn = F.softmax_cross_entropy                        # the mean over this worker's share; averaged over the workers
print(sum(p.size for p in model.params()), "parameters in every worker")

# %% tags=["train"]
# [batches]
n_batches = len(x_train) // hp.batch_size
for epoch in range(hp.epochs):
    order = rng.permutation(len(x_train)) if hp.shuffle else np.arange(len(x_train))   # the same in every worker
    order = device.send(order)
    for i in range(n_batches):
        # This worker's rows of the batch, interleaved as the other tabs deal them out.
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size][rank::workers]
        # [training-step]
        loss = loss_fn(model(x_train[rows]), y_train[rows])
        model.cleargrads()
        loss.backward()
        optimizer.update()                               # all-reduce the gradients, then the momentum step
    # [progress]
    print(f"epoch {epoch + 1}: worker {rank}'s last loss {float(loss.array):.3f}")

# %% tags=["infer"]
# [predictions] Each worker predicts its share of the test set.
x_mine, y_mine = x_test[rank::workers], y_test[rank::workers]
with chainer.using_config("train", False), chainer.no_backprop_mode():
    mine = xp.concatenate([model(x_mine[i:i + hp.batch_size]).array.argmax(axis=1)
                           for i in range(0, len(x_mine), hp.batch_size)])
# [accuracy] The correct predictions, summed over the workers.
correct = comm.allreduce_obj(int((mine == y_mine).sum()))
accuracy = correct / len(y_test)
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size)
