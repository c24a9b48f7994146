# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # CNN on CIFAR-10 with the MXNet Module API
# The same network as a symbolic graph (`mx.sym`), declared before any data flows through it,
# then bound to shapes, trained and evaluated by an `mx.mod.Module`: MXNet 1.x before Gluon.

# %% tags=["setup"]
# [imports]
import os

import mxnet as mx
import numpy as np

from rosetta import report, settings
from rosetta.data import cifar10

# [seeds]
hp = settings("cnn_cifar10")
mx.random.seed(hp.seed)                                  # the initializer draws from MXNet's generator
np.random.seed(hp.seed)                                  # NDArrayIter shuffles with numpy's
# [device]
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
# float32, not TF32: MXNet has no switch for cuDNN's default; the row's environment sets NVIDIA_TF32_OVERRIDE=0.
# cuDNN autotune is MXNet's default (MXNET_CUDNN_AUTOTUNE_DEFAULT=1).
tf32 = "TF32 off" if os.environ.get("NVIDIA_TF32_OVERRIDE") == "0" else "TF32 allowed"
math_mode = f"float32 ({tf32}), cuDNN autotune on" if ctx.device_type == "gpu" else "float32"
print(f"MXNet {mx.__version__} on {ctx}, {math_mode}, profile {hp.profile}")

# %% tags=["data"]
# Channels first (N, 3, 32, 32), MXNet's native layout. The iterators hand out batches; the
# Module copies each one into its executor's arrays on the device.
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
train_iter = mx.io.NDArrayIter(x_train, y_train, batch_size=hp.batch_size, shuffle=hp.shuffle,
                               last_batch_handle="discard")   # full batches only
# The last test batch is padded to a full one; predict() drops the padding from its results.
test_iter = mx.io.NDArrayIter(x_test, y_test, batch_size=hp.batch_size, last_batch_handle="pad")
print("train", x_train.shape, "test", x_test.shape)

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
net = mx.sym.FullyConnected(net, num_hidden=512, name="fc1")   # flattens (N, 100, 8, 8) itself
net = mx.sym.Activation(net, act_type="relu")
net = mx.sym.Dropout(net, p=hp.dropout_dense)
net = mx.sym.FullyConnected(net, num_hidden=10, name="fc2")    # logits
# [loss] Softmax forward, the cross-entropy gradient backward: the graph ends in its loss. Its label
# input is "softmax_label", the name the iterators give the labels.
net = mx.sym.SoftmaxOutput(net, name="softmax")

# [network]
mod = mx.mod.Module(net, context=ctx)
mod.bind(data_shapes=train_iter.provide_data, label_shapes=train_iter.provide_label)
# Glorot-uniform kernels; Xavier gives every parameter named *_bias zeros.
mod.init_params(initializer=mx.init.Xavier(rnd_type="uniform", factor_type="avg", magnitude=3))
# [optimizer] The Module scales gradients by 1 / batch size itself (rescale_grad): the loss is a batch mean.
mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": hp.learning_rate,
                                                      "momentum": hp.momentum})
loss = mx.metric.CrossEntropy()    # not the loss trained on (that is the graph's end): what the printout shows
print(sum(a.size for a in mod.get_params()[0].values()), "parameters")

# %% tags=["train"]
# [batches]
for epoch in range(hp.epochs):
    train_iter.reset()                                   # a new order each epoch (shuffle)
    for batch in train_iter:
        # [training-step]
        mod.forward_backward(batch)                      # is_train: dropout on
        mod.update()
    # [progress]
    loss.reset()
    mod.update_metric(loss, batch.label)                 # reads the outputs: waits for the last step
    print(f"epoch {epoch + 1}: last batch loss {loss.get()[1]:.3f}")
mx.nd.waitall()                                          # MXNet is asynchronous: wait before the clock stops

# %% tags=["infer"]
# [predictions] predict() runs forward with is_train=False (dropout off) and returns the softmax outputs.
predictions = mod.predict(test_iter).argmax(axis=1).asnumpy()
# [accuracy]
accuracy = float((predictions == y_test).mean())
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * (len(x_train) // hp.batch_size) * hp.batch_size)
