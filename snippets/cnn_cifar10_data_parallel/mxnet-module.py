# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # Data-parallel CNN on CIFAR-10 with the MXNet Module API
# The same parameter server as the Gluon tab: a `dist_sync` kvstore, with a scheduler and a server process
# besides the workers (MXNet's `tools/launch.py` starts them all). The Module takes it in
# `init_optimizer(kvstore=...)`: each worker pushes its gradients and pulls the sum of every worker's.

# %% tags=["setup"]
# [imports]
import os

import mxnet as mx
import numpy as np

from rosetta import report, settings
from rosetta.data import cifar10

# [workers] The DMLC_* variables name the scheduler's address and how many workers and servers there are.
kvstore = mx.kv.create("dist_sync")                      # each step waits for every worker's gradients
rank, workers = kvstore.rank, kvstore.num_workers
# [seeds] The same seeds in every worker: the same starting weights and the same batch order.
hp = settings("cnn_cifar10_data_parallel")
mx.random.seed(hp.seed)
rng = np.random.default_rng(hp.seed)
# [device]
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
print(f"MXNet {mx.__version__}, worker {rank} of {workers} on {ctx}, kvstore {kvstore.type}, profile {hp.profile}")

# %% tags=["data"]
# Every worker holds the data set; each trains on its share of every batch.
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
share = hp.batch_size // workers
# The last test batch is padded to a full one; predict() drops the padding from its results.
test_iter = mx.io.NDArrayIter(x_test, y_test, batch_size=share, last_batch_handle="pad")
print("train", x_train.shape, "test", x_test.shape, f"{share} images a step per worker")

# %% tags=["model"]
# [network] Layers are named so that their parameters are (conv1_weight, conv1_bias, ...).
net = mx.sym.Variable("data")
net = mx.sym.Convolution(net, kernel=(3, 3), pad=(1, 1), num_filter=50, name="conv1")
net = mx.sym.Activation(net, act_type="relu")
net = mx.sym.Convolution(net, kernel=(3, 3), pad=(1, 1), num_filter=50, name="conv2")
net = mx.sym.Pooling(net, pool_type="max", kernel=(2, 2), stride=(2, 2))
net = mx.sym.Activation(net, act_type="relu")
net = mx.sym.Dropout(net, p=hp.dropout_conv)
net = mx.sym.Convolution(net, kernel=(3, 3), pad=(1, 1), num_filter=100, name="conv3")
net = mx.sym.Activation(net, act_type="relu")
net = mx.sym.Convolution(net, kernel=(3, 3), pad=(1, 1), num_filter=100, name="conv4")
net = mx.sym.Pooling(net, pool_type="max", kernel=(2, 2), stride=(2, 2))
net = mx.sym.Activation(net, act_type="relu")
net = mx.sym.Dropout(net, p=hp.dropout_conv)
net = mx.sym.FullyConnected(net, num_hidden=512, name="fc1")
net = mx.sym.Activation(net, act_type="relu")
net = mx.sym.Dropout(net, p=hp.dropout_dense)
net = mx.sym.FullyConnected(net, num_hidden=10, name="fc2")
# [loss] Softmax forward, the cross-entropy gradient backward: the graph ends in its loss.
net = mx.sym.SoftmaxOutput(net, name="softmax")

# [network] Bound to this worker's share of a batch.
mod = mx.mod.Module(net, context=ctx)
mod.bind(data_shapes=[("data", (share, *x_train.shape[1:]))], label_shapes=[("softmax_label", (share,))])
mod.init_params(initializer=mx.init.Xavier(rnd_type="uniform", factor_type="avg", magnitude=3))
# [optimizer] Here the server only sums the workers' gradients, and each worker updates its own copy with the sum,
# as the other tabs' workers do (by default the optimizer would run on the server, as in the Gluon tab). With a
# dist_sync kvstore the Module scales the gradients by 1 / (share x workers): the whole batch.
os.environ["MXNET_UPDATE_ON_KVSTORE"] = "0"             # read by init_optimizer
mod.init_optimizer(kvstore=kvstore, optimizer="sgd",
                   optimizer_params={"learning_rate": hp.learning_rate, "momentum": hp.momentum})
loss = mx.metric.CrossEntropy()    # not the loss trained on (that is the graph's end): what the printout shows
print(sum(a.size for a in mod.get_params()[0].values()), "parameters in every worker")

# %% tags=["train"]
# [batches]
n_batches = len(x_train) // hp.batch_size
for epoch in range(hp.epochs):
    order = rng.permutation(len(x_train)) if hp.shuffle else np.arange(len(x_train))   # the same in every worker
    # This worker's rows of every batch, interleaved as the other tabs deal them out, batch after batch.
    mine = order[:n_batches * hp.batch_size].reshape(n_batches, hp.batch_size)[:, rank::workers].ravel()
    for batch in mx.io.NDArrayIter(x_train[mine], y_train[mine], batch_size=share):
        # [training-step]
        mod.forward_backward(batch)                      # is_train: dropout on
        mod.update()                                     # push this worker's gradients, pull the sum, update
    # [progress]
    loss.reset()
    mod.update_metric(loss, batch.label)                 # reads the outputs: waits for the last step
    print(f"epoch {epoch + 1}: worker {rank}'s last loss {loss.get()[1]:.3f}")
mx.nd.waitall()

# %% tags=["infer"]
# [predictions] The kvstore sums only into the server's weights: every worker, holding the same weights,
# predicts the whole test set.
predictions = mod.predict(test_iter).argmax(axis=1).asnumpy()
# [accuracy]
accuracy = float((predictions == y_test).mean())
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size)
