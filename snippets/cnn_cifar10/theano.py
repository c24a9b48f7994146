# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Theano'
#     language: python
#     name: rosetta-theano
# ---

# %% [markdown]
# # CNN on CIFAR-10 with Theano
# The same network as a symbolic graph: weights are shared variables, the forward pass is an
# expression over a symbolic batch, `T.grad` differentiates it, SGD + momentum is written out as
# `updates=`, and `theano.function` compiles all of it into one C program.

# %% tags=["setup"]
# [imports]
import numpy as np
import theano
import theano.tensor as T
from theano.sandbox.rng_mrg import MRG_RandomStreams
from theano.tensor.signal.pool import pool_2d

from rosetta import report, settings
from rosetta.data import cifar10

# [seeds]
hp = settings("cnn_cifar10")
rng = np.random.default_rng(hp.seed)                     # initial weights and the epochs' orders
# Dropout masks are drawn inside the compiled graph, from MRG streams (whose seed must not be 0).
streams = MRG_RandomStreams(seed=hp.seed + 1)
# [device]
floatX = theano.config.floatX                            # float32, set in THEANO_FLAGS
print(f"Theano {theano.__version__} on {theano.config.device}, floatX {floatX}, profile {hp.profile}")

# %% tags=["data"]
# Channels first (N, 3, 32, 32): the layout of Theano's conv2d. Plain numpy arrays: a compiled
# function takes numpy batches and returns numpy arrays.
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
print("train", x_train.shape, "test", x_test.shape)


# %% tags=["model"]
# [network]
def glorot_uniform(*shape):
    """U(-a, a), a = sqrt(6 / (fan_in + fan_out)), for a conv kernel (out, in, h, w) or a dense one (in, out)."""
    receptive_field = np.prod(shape[2:])                 # 3 x 3 for a conv kernel, 1 for a dense one
    fan_in, fan_out = (shape[1] * receptive_field, shape[0] * receptive_field) if len(shape) == 4 else shape
    limit = np.sqrt(6 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, shape).astype(floatX)


def layer(name, *shape):                                 # a kernel and its bias, as shared variables
    out_channels = shape[0] if len(shape) == 4 else shape[1]
    return (theano.shared(glorot_uniform(*shape), name=f"{name}.kernel"),
            theano.shared(np.zeros(out_channels, floatX), name=f"{name}.bias"))


conv1, conv2 = layer("conv1", 50, 3, 3, 3), layer("conv2", 50, 50, 3, 3)
conv3, conv4 = layer("conv3", 100, 50, 3, 3), layer("conv4", 100, 100, 3, 3)
fc1, fc2 = layer("fc1", 100 * 8 * 8, 512), layer("fc2", 512, 10)
params = [p for pair in (conv1, conv2, conv3, conv4, fc1, fc2) for p in pair]


def conv(x, kernel, bias):
    # border_mode="half": zero padding 1 for 3x3. Theano's conv2d flips the kernel (a true convolution)
    # unless filter_flip=False: the other tabs compute a cross-correlation.
    x = T.nnet.conv2d(x, kernel, border_mode="half", filter_flip=False)
    return x + bias.dimshuffle("x", 0, "x", "x")         # broadcast the bias over (N, C, H, W)


def dropout(x, rate, training):
    if not training:
        return x
    keep = 1 - rate
    return x * streams.binomial(x.shape, p=keep, dtype=floatX) / keep   # a new mask at every call of the function


def vggish(x, training):
    x = T.nnet.relu(conv(x, *conv1))
    x = T.nnet.relu(pool_2d(conv(x, *conv2), ws=(2, 2), ignore_border=True))   # ReLU after pooling: 4x cheaper
    x = dropout(x, hp.dropout_conv, training)
    x = T.nnet.relu(conv(x, *conv3))
    x = T.nnet.relu(pool_2d(conv(x, *conv4), ws=(2, 2), ignore_border=True))
    x = dropout(x, hp.dropout_conv, training)
    x = T.nnet.relu(T.dot(x.flatten(2), fc1[0]) + fc1[1])   # flatten (c, h, w); dense kernels are (in, out)
    x = dropout(x, hp.dropout_dense, training)
    return T.dot(x, fc2[0]) + fc2[1]                     # logits


images, labels = T.tensor4("images"), T.ivector("labels")   # symbolic: float32 (N, 3, 32, 32), int32 (N,)
# [loss] Softmax then cross-entropy, mean over the batch: Theano's optimizer rewrites the pair into one stable op.
cost = T.nnet.categorical_crossentropy(T.nnet.softmax(vggish(images, training=True)), labels).mean()
# [optimizer] Theano has no optimizer library: classic momentum written out, v = m*v - lr*g; w += v.
updates = []
for w, g in zip(params, T.grad(cost, params)):
    v = theano.shared(np.zeros_like(w.get_value()))      # one velocity per weight
    v_new = hp.momentum * v - hp.learning_rate * g
    updates += [(v, v_new), (w, w + v_new)]              # all updates read the old values, then write
# theano.function optimises each graph and compiles it to C with g++: tens of seconds the first time
# (cached in base_compiledir afterwards), spent here and not in the training step.
train = theano.function([images, labels], cost, updates=updates)
predict = theano.function([images], vggish(images, training=False))   # dropout off
print(sum(p.get_value().size for p in params), "parameters")

# %% tags=["train"]
# [batches]
n_batches = len(x_train) // hp.batch_size               # full batches only
for epoch in range(hp.epochs):
    order = rng.permutation(len(x_train)) if hp.shuffle else np.arange(len(x_train))   # a new order each epoch
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        # [training-step]
        loss = train(x_train[rows], y_train[rows])      # one step: forward, backward and the updates
    # [progress]
    print(f"epoch {epoch + 1}: last batch loss {float(loss):.3f}")

# %% tags=["infer"]
# [predictions]
predictions = np.concatenate([predict(x_test[i:i + hp.batch_size]).argmax(axis=1)
                              for i in range(0, len(x_test), hp.batch_size)])
# [accuracy]
accuracy = float((predictions == y_test).mean())
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size)
