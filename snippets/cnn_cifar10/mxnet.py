# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # CNN on CIFAR-10 with MXNet Gluon
# The same network as a hybridized `gluon.nn.HybridSequential`: written imperatively,
# compiled to a symbolic graph on first call.

# %% tags=["setup"]
# [imports]
import os

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon
from mxnet.gluon import nn

from rosetta import report, settings
from rosetta.data import cifar10

# [seeds]
hp = settings("cnn_cifar10")
mx.random.seed(hp.seed)
rng = np.random.default_rng(hp.seed)
# [device]
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
# float32, not TF32: MXNet has no switch for cuDNN's default; the row's environment sets NVIDIA_TF32_OVERRIDE=0.
# cuDNN autotune is MXNet's default (MXNET_CUDNN_AUTOTUNE_DEFAULT=1).
tf32 = "TF32 off" if os.environ.get("NVIDIA_TF32_OVERRIDE") == "0" else "TF32 allowed"
math_mode = f"float32 ({tf32}), cuDNN autotune on" if ctx.device_type == "gpu" else "float32"
print(f"MXNet {mx.__version__} on {ctx}, {math_mode}, profile {hp.profile}")

# %% tags=["data"]
# Channels first (N, 3, 32, 32), MXNet's native layout. Data lives in MXNet arrays on the
# device: converting from numpy per batch would cost a copy each time.
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
x_train, x_test = mx.nd.array(x_train, ctx=ctx), mx.nd.array(x_test, ctx=ctx)
y_train, y_test = mx.nd.array(y_train, ctx=ctx), mx.nd.array(y_test, ctx=ctx)
print("train", x_train.shape, "test", x_test.shape)

# %% tags=["model"]
# [network]
model = nn.HybridSequential()
model.add(
    nn.Conv2D(50, kernel_size=3, padding=1, activation="relu"),
    nn.Conv2D(50, kernel_size=3, padding=1),
    nn.MaxPool2D(pool_size=2, strides=2),
    nn.Activation("relu"),
    nn.Dropout(hp.dropout_conv),
    nn.Conv2D(100, kernel_size=3, padding=1, activation="relu"),
    nn.Conv2D(100, kernel_size=3, padding=1),
    nn.MaxPool2D(pool_size=2, strides=2),
    nn.Activation("relu"),
    nn.Dropout(hp.dropout_conv),
    nn.Flatten(),
    nn.Dense(512, activation="relu"),
    nn.Dropout(hp.dropout_dense),
    nn.Dense(10),                                        # logits
)
# Gluon's default kernel init is uniform(-0.07, 0.07): ask for Glorot-uniform (biases start at 0).
model.initialize(mx.init.Xavier(rnd_type="uniform", factor_type="avg", magnitude=3), ctx=ctx)
model.hybridize(static_alloc=True, static_shape=True)   # one cached graph for fixed shapes
# [optimizer]
trainer = gluon.Trainer(model.collect_params(), "sgd",
                        {"learning_rate": hp.learning_rate, "momentum": hp.momentum})
# [loss]
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()          # softmax inside, on logits
print(model)                                             # input sizes are inferred at the first call

# %% tags=["train"]
# [batches]
n_batches = len(x_train) // hp.batch_size               # full batches only
for epoch in range(hp.epochs):
    order = rng.permutation(len(x_train)) if hp.shuffle else np.arange(len(x_train))   # a new order each epoch
    order = mx.nd.array(order, ctx=ctx)
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        # [training-step]
        with autograd.record():                          # record() also turns dropout on
            loss = loss_fn(model(x_train.take(rows)), y_train.take(rows))
        loss.backward()
        trainer.step(hp.batch_size)                      # gradients are summed: divide by batch size
    # [progress]
    print(f"epoch {epoch + 1}: last batch loss {loss.mean().asscalar():.3f}")
mx.nd.waitall()                                          # MXNet is asynchronous: wait before the clock stops

# %% tags=["infer"]
# [predictions] Outside autograd.record() Gluon runs in inference mode: dropout off.
predictions = mx.nd.concat(*[model(x_test[i:i + hp.batch_size]).argmax(axis=1)
                             for i in range(0, len(x_test), hp.batch_size)], dim=0)
# [accuracy]
accuracy = float((predictions == y_test).mean().asscalar())
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size)
