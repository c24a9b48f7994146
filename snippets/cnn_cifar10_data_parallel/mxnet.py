# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # Data-parallel CNN on CIFAR-10 with MXNet Gluon
# A parameter server: MXNet's `dist_sync` kvstore. Besides one process per worker it runs a scheduler
# and a server process (the same program, `DMLC_ROLE=scheduler` or `server`; MXNet's `tools/launch.py`
# starts them all). Each worker pushes its gradients to the server, which sums every worker's, applies
# the optimizer there, and sends the new weights back.

# %% tags=["setup"]
# [imports]
import mxnet as mx
import numpy as np
from mxnet import autograd, gluon
from mxnet.gluon import nn

from rosetta import report, settings
from rosetta.data import cifar10

# [workers] The DMLC_* variables name the scheduler's address and how many workers and servers there are.
kvstore = mx.kv.create("dist_sync")                      # each step waits for every worker's gradients
rank, workers = kvstore.rank, kvstore.num_workers
# [seeds] The same seeds in every worker: the same batch order (the weights are worker 0's, sent out).
hp = settings("cnn_cifar10_data_parallel")
mx.random.seed(hp.seed)
rng = np.random.default_rng(hp.seed)
# [device]
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
print(f"MXNet {mx.__version__}, worker {rank} of {workers} on {ctx}, kvstore {kvstore.type}, profile {hp.profile}")

# %% tags=["data"]
# Every worker holds the data set; each trains on its share of every batch.
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
x_train, x_test = mx.nd.array(x_train, ctx=ctx), mx.nd.array(x_test, ctx=ctx)
y_train, y_test = mx.nd.array(y_train, ctx=ctx), mx.nd.array(y_test, ctx=ctx)
share = hp.batch_size // workers
print("train", x_train.shape, "test", x_test.shape, f"{share} images a step per worker")

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
    nn.Dense(10),
)
model.initialize(mx.init.Xavier(rnd_type="uniform", factor_type="avg", magnitude=3), ctx=ctx)
model.hybridize(static_alloc=True, static_shape=True)
# [optimizer] With a dist kvstore the optimizer runs on the server (update_on_kvstore): the workers only push
# gradients and pull weights.
trainer = gluon.Trainer(model.collect_params(), "sgd",
                        {"learning_rate": hp.learning_rate, "momentum": hp.momentum}, kvstore=kvstore)
# [loss]
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
print(model)

# %% tags=["train"]
# [batches]
n_batches = len(x_train) // hp.batch_size
for epoch in range(hp.epochs):
    order = rng.permutation(len(x_train)) if hp.shuffle else np.arange(len(x_train))   # the same in every worker
    for i in range(n_batches):
        rows = mx.nd.array(order[i * hp.batch_size:(i + 1) * hp.batch_size][rank::workers], ctx=ctx)
        # [training-step]
        with autograd.record():
            loss = loss_fn(model(x_train.take(rows)), y_train.take(rows))
        loss.backward()
        # The server sums the workers' gradient sums: divide by the whole batch, not this worker's share.
        trainer.step(hp.batch_size)
    # [progress]
    print(f"epoch {epoch + 1}: worker {rank}'s last loss {loss.mean().asscalar():.3f}")
mx.nd.waitall()

# %% tags=["infer"]
# [predictions] The kvstore sums only into the server's weights: every worker, holding the same weights,
# predicts the whole test set.
predictions = mx.nd.concat(*[model(x_test[i:i + hp.batch_size]).argmax(axis=1)
                             for i in range(0, len(x_test), hp.batch_size)], dim=0)
# [accuracy]
accuracy = float((predictions == y_test).mean().asscalar())
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size)
