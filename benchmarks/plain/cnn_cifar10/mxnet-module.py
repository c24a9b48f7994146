"""Plain-script twin of snippets/cnn_cifar10/mxnet-module.py: the same symbolic CNN in a Module, training timed."""
import json
import time

import mxnet as mx
import numpy as np

from rosetta import settings
from rosetta.data import cifar10

hp = settings("cnn_cifar10")
mx.random.seed(hp.seed)
np.random.seed(hp.seed)
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()

x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
shuffle = getattr(hp, "shuffle", True)      # a new order every epoch; the equivalence checks turn it off
train_iter = mx.io.NDArrayIter(x_train, y_train, batch_size=hp.batch_size, shuffle=shuffle,
                               last_batch_handle="discard")

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
net = mx.sym.SoftmaxOutput(net, name="softmax")

mod = mx.mod.Module(net, context=ctx)
mod.bind(data_shapes=train_iter.provide_data, label_shapes=train_iter.provide_label)
mod.init_params(initializer=mx.init.Xavier(rnd_type="uniform", factor_type="avg", magnitude=3))
mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": hp.learning_rate, "momentum": hp.momentum})

started = time.perf_counter()
for _ in range(hp.epochs):
    train_iter.reset()
    for batch in train_iter:
        mod.forward_backward(batch)
        mod.update()
mx.nd.waitall()                                          # asynchronous engine: wait before stopping the clock
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": hp.epochs * (len(x_train) // hp.batch_size) * hp.batch_size}))
