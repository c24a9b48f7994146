# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # Input pipeline or slices of arrays in memory, in MXNet's Module API

# %% tags=["setup"]
import mxnet as mx
import numpy as np

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("input_pipeline")
mx.random.seed(hp.seed)
np.random.seed(hp.seed)                                  # NDArrayIter shuffles with numpy's
rng = np.random.default_rng(hp.seed)
ctx = mx.cpu()
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_all, y_all = mx.nd.array(x_train, ctx=ctx), mx.nd.array(y_train, ctx=ctx)   # the whole subset in memory
n_batches = len(x_train) // hp.batch_size

# An MLP 3072-512-10 as a symbol: a step costs a few milliseconds, so the cost of feeding it shows.
net = mx.sym.FullyConnected(mx.sym.Flatten(mx.sym.Variable("data")), num_hidden=hp.hidden, name="fc1")
net = mx.sym.FullyConnected(mx.sym.Activation(net, act_type="relu"), num_hidden=10, name="fc2")
net = mx.sym.SoftmaxOutput(net, name="softmax")
shapes = {"data_shapes": [("data", (hp.batch_size, *x_train.shape[1:]))],
          "label_shapes": [("softmax_label", (hp.batch_size,))]}
mod = mx.mod.Module(net, context=ctx)
mod.bind(**shapes)
mod.init_params(initializer=mx.init.Xavier())
mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": hp.learning_rate, "momentum": hp.momentum})


def train_step(batch):
    mod.forward_backward(batch)                          # copies the batch into the executor's arrays
    mod.update()


# %% tags=["variants"]
def slicing():
    order = mx.nd.array(rng.permutation(len(x_train)), ctx=ctx)   # a new order each epoch
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        train_step(mx.io.DataBatch(data=[x_all.take(rows)], label=[y_all.take(rows)]))   # one gather per batch
    mx.nd.waitall()                                      # MXNet is asynchronous: wait for the last step


def iterator(background):
    # Module's own pipeline: an NDArrayIter shuffles and cuts the batches; PrefetchingIter runs it in a
    # background thread, one batch ahead of the training step.
    batches = mx.io.NDArrayIter(x_train, y_train, batch_size=hp.batch_size, shuffle=True,
                                last_batch_handle="discard")
    batches = mx.io.PrefetchingIter(batches) if background else batches

    def epoch():
        batches.reset()                                  # a new order each epoch (shuffle)
        for batch in batches:
            train_step(batch)
        mx.nd.waitall()
    return epoch


# %% tags=["measure"]
lesson.compare(hp, {"slicing": slicing, "pipeline": iterator(background=True),
                    "pipeline_in_process": iterator(background=False)})
