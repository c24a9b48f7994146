# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # Input pipeline or slices of arrays in memory, in PaddlePaddle

# %% tags=["setup"]
import os

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.io import DataLoader, Dataset

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("input_pipeline")
paddle.seed(hp.seed)
images, labels, _, _ = cifar10.load(hp, layout="NCHW")
labels = labels.astype("int64")
x_train, y_train = paddle.to_tensor(images), paddle.to_tensor(labels)   # the whole subset in memory
n_batches = len(x_train) // hp.batch_size

# An MLP 3072-512-10: a step costs a few milliseconds, so the cost of feeding it shows.
model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, hp.hidden), nn.ReLU(), nn.Linear(hp.hidden, 10))
optimizer = paddle.optimizer.Momentum(learning_rate=hp.learning_rate, momentum=hp.momentum,
                                      parameters=model.parameters())


def train_step(x, y):
    F.cross_entropy(model(x), y).backward()
    optimizer.step()
    optimizer.clear_grad()


# %% tags=["variants"]
def slicing():
    order = paddle.randperm(len(x_train))                # a new order each epoch
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        train_step(x_train[rows], y_train[rows])         # one gather per batch


class Arrays(Dataset):
    """The same subset, as numpy arrays in memory, one sample at a time (the form of the Dataset examples in
    Paddle's guide). paddle.io.TensorDataset over Paddle tensors works without workers only: with them, the
    forked worker processes die of a segmentation fault here."""

    def __getitem__(self, i):
        return images[i], labels[i]

    def __len__(self):
        return len(images)


def loader(workers):
    # The DataLoader indexes the dataset one sample at a time, stacks the batch and makes it a tensor; with
    # workers, processes (forked once: persistent_workers) do that in the background and hand the batches back
    # through shared memory. Without workers, Paddle's loader still reads ahead, in a thread of the training
    # process (use_buffer_reader, its default).
    batches = DataLoader(Arrays(), batch_size=hp.batch_size, shuffle=True, drop_last=True,
                         num_workers=workers, persistent_workers=workers > 0)

    def epoch():
        for x, y in batches:
            train_step(x, y)
    return epoch


# %% tags=["measure"]
lesson.compare(hp, {"slicing": slicing, "pipeline": loader(hp.workers), "pipeline_in_process": loader(0)})
