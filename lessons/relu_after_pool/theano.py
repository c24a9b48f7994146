# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Theano'
#     language: python
#     name: rosetta-theano
# ---

# %% [markdown]
# # ReLU after max-pooling, in Theano

# %% tags=["setup"]
import numpy as np
import theano
import theano.tensor as T
from theano.tensor.signal.pool import pool_2d

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("relu_after_pool")
floatX = theano.config.floatX                            # float32, set in THEANO_FLAGS
rng = np.random.default_rng(hp.seed)
x_train, y_train, x_test, _ = cifar10.load(hp, layout="NCHW")
y_train = y_train.astype("int32")
initial = []                                             # Glorot-uniform kernels, zero biases, as the CNN tab
for shape in [(50, 3, 3, 3), (50, 50, 3, 3), (100, 50, 3, 3), (100, 100, 3, 3), (100 * 8 * 8, 512), (512, 10)]:
    fan_in, fan_out = (shape[1] * 9, shape[0] * 9) if len(shape) == 4 else shape
    limit = np.sqrt(6 / (fan_in + fan_out))
    initial += [rng.uniform(-limit, limit, shape).astype(floatX), np.zeros(shape[0 if len(shape) == 4 else 1], floatX)]
images, labels = T.tensor4("images"), T.ivector("labels")


def vggish(x, block, params):
    """The CNN benchmark's network (dropout left out: it does not change the order's cost)."""
    c1, b1, c2, b2, c3, b3, c4, b4, f1, d1, f2, d2 = params

    def conv(x, kernel, bias):
        return T.nnet.conv2d(x, kernel, border_mode="half", filter_flip=False) + bias.dimshuffle("x", 0, "x", "x")
    x = block(conv(T.nnet.relu(conv(x, c1, b1)), c2, b2))
    x = block(conv(T.nnet.relu(conv(x, c3, b3)), c4, b4))
    return T.dot(T.nnet.relu(T.dot(x.flatten(2), f1) + d1), f2) + d2


# %% tags=["variants"]
def relu_then_pool(x):
    return pool_2d(T.nnet.relu(x), ws=(2, 2), ignore_border=True)


def pool_then_relu(x):                                   # a quarter of the values reach the ReLU
    return T.nnet.relu(pool_2d(x, ws=(2, 2), ignore_border=True))


def trainer(block):
    """The training step compiled for one order, on its own copy of the same starting weights."""
    params = [theano.shared(value.copy()) for value in initial]
    cost = T.nnet.categorical_crossentropy(T.nnet.softmax(vggish(images, block, params)), labels).mean()
    updates = []
    for w, g in zip(params, T.grad(cost, params)):       # classic momentum, as the CNN tab
        v = theano.shared(np.zeros_like(w.get_value()))
        v_new = hp.momentum * v - hp.learning_rate * g
        updates += [(v, v_new), (w, w + v_new)]
    step = theano.function([images, labels], [], updates=updates)

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            step(x_train[rows], y_train[rows])           # on a CPU, a Theano call returns when it has run
    return train


same_weights = [theano.shared(value) for value in initial]
difference = theano.function([images], abs(vggish(images, relu_then_pool, same_weights)
                                           - vggish(images, pool_then_relu, same_weights)).max())
max_difference = float(difference(x_test))
print(f"largest difference between the two orders' logits: {max_difference:.2e}")

# %% tags=["measure"]
lesson.compare(hp, {"relu_then_pool": trainer(relu_then_pool), "pool_then_relu": trainer(pool_then_relu)},
               facts={"pool_then_relu": {"max_difference": max_difference}})
