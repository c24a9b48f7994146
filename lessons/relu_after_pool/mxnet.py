# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # ReLU after max-pooling, in MXNet Gluon

# %% tags=["setup"]
import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("relu_after_pool")
mx.random.seed(hp.seed)
x_train, y_train, x_test, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train, x_test = mx.nd.array(x_train), mx.nd.array(y_train), mx.nd.array(x_test)


def vggish(block):
    """The CNN benchmark's network (dropout left out: it does not change the order's cost)."""
    model = nn.HybridSequential()
    model.add(nn.Conv2D(50, kernel_size=3, padding=1, activation="relu"),
              nn.Conv2D(50, kernel_size=3, padding=1),
              *block(),
              nn.Conv2D(100, kernel_size=3, padding=1, activation="relu"),
              nn.Conv2D(100, kernel_size=3, padding=1),
              *block(),
              nn.Flatten(),
              nn.Dense(512, activation="relu"),
              nn.Dense(10))                              # logits
    model.initialize(mx.init.Xavier())
    model(x_test)                                        # the first call infers the input sizes
    return model


# %% tags=["variants"]
def relu_then_pool():
    return [nn.Activation("relu"), nn.MaxPool2D(pool_size=2, strides=2)]


def pool_then_relu():                                    # a quarter of the values reach the ReLU
    return [nn.MaxPool2D(pool_size=2, strides=2), nn.Activation("relu")]


first = vggish(relu_then_pool)
second = vggish(pool_then_relu)
for mine, theirs in zip(second.collect_params().values(), first.collect_params().values()):
    mine.set_data(theirs.data())                         # the same weights in both
max_difference = float((first(x_test) - second(x_test)).abs().max().asscalar())
print(f"largest difference between the two orders' logits: {max_difference:.2e}")


def trainer(model):
    model.hybridize(static_alloc=True, static_shape=True)   # one cached graph per model
    optimizer = gluon.Trainer(model.collect_params(), "sgd",
                              {"learning_rate": hp.learning_rate, "momentum": hp.momentum})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            with autograd.record():
                loss = loss_fn(model(x_train[rows]), y_train[rows])
            loss.backward()
            optimizer.step(hp.batch_size)
        mx.nd.waitall()                                  # MXNet is asynchronous: wait for the queued work
    return train


# %% tags=["measure"]
lesson.compare(hp, {"relu_then_pool": trainer(first), "pool_then_relu": trainer(second)},
               facts={"pool_then_relu": {"max_difference": max_difference}})
