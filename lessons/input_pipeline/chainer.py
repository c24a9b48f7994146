# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # Input pipeline or slices of arrays in memory, in Chainer

# %% tags=["setup"]
import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np
from chainer import iterators
from chainer.dataset import concat_examples

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("input_pipeline")
np.random.seed(hp.seed)                                  # Chainer's initialisers and iterators draw from numpy
rng = np.random.default_rng(hp.seed)
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")   # the whole subset in memory, as numpy arrays
n_batches = len(x_train) // hp.batch_size

# An MLP 3072-512-10: a step costs a few milliseconds, so the cost of feeding it shows.
model = chainer.Sequential(L.Linear(3 * 32 * 32, hp.hidden), F.relu, L.Linear(hp.hidden, 10))
optimizer = chainer.optimizers.MomentumSGD(lr=hp.learning_rate, momentum=hp.momentum)
optimizer.setup(model)


def train_step(x, y):
    loss = F.softmax_cross_entropy(model(x), y)
    model.cleargrads()
    loss.backward()
    optimizer.update()


# %% tags=["variants"]
def slicing():
    order = rng.permutation(len(x_train))                # a new order each epoch
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        train_step(x_train[rows], y_train[rows])         # one gather per batch


def iterate(batches):
    # An iterator returns a list of (image, label) examples; concat_examples stacks them into
    # arrays, as a Trainer's updater does. It repeats forever: one call takes one epoch of it.
    def epoch():
        for _ in range(n_batches):
            train_step(*concat_examples(batches.next()))
    return epoch


dataset = chainer.datasets.TupleDataset(x_train, y_train)
# MultiprocessIterator: worker processes fetch and shuffle the examples ahead of the training loop.
background = iterators.MultiprocessIterator(dataset, hp.batch_size, shuffle=True, n_processes=hp.workers)
in_process = iterators.SerialIterator(dataset, hp.batch_size, shuffle=True)

# %% tags=["measure"]
lesson.compare(hp, {"slicing": slicing, "pipeline": iterate(background), "pipeline_in_process": iterate(in_process)})
background.finalize()                                    # stop the worker processes
