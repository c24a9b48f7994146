# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Theano'
#     language: python
#     name: rosetta-theano
# ---

# %% [markdown]
# # No gradient to the input, in Theano

# %% tags=["setup"]
import numpy as np
import theano
import theano.tensor as T
from theano.tensor.signal.pool import pool_2d

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("input_gradient")
floatX = theano.config.floatX                            # float32, set in THEANO_FLAGS
rng = np.random.default_rng(hp.seed)
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
y_train = y_train.astype("int32")
initial = []                                             # Glorot-uniform kernels, zero biases, as the CNN tab
for shape in [(50, 3, 3, 3), (50, 50, 3, 3), (100, 50, 3, 3), (100, 100, 3, 3), (100 * 8 * 8, 512), (512, 10)]:
    fan_in, fan_out = (shape[1] * 9, shape[0] * 9) if len(shape) == 4 else shape
    limit = np.sqrt(6 / (fan_in + fan_out))
    initial += [rng.uniform(-limit, limit, shape).astype(floatX), np.zeros(shape[0 if len(shape) == 4 else 1], floatX)]
images, labels = T.tensor4("images"), T.ivector("labels")


def vggish(x, params):
    """The CNN benchmark's network, without dropout."""
    c1, b1, c2, b2, c3, b3, c4, b4, f1, d1, f2, d2 = params

    def conv(x, kernel, bias):
        return T.nnet.conv2d(x, kernel, border_mode="half", filter_flip=False) + bias.dimshuffle("x", 0, "x", "x")

    def pool(x):
        return T.nnet.relu(pool_2d(x, ws=(2, 2), ignore_border=True))
    x = pool(conv(T.nnet.relu(conv(x, c1, b1)), c2, b2))
    x = pool(conv(T.nnet.relu(conv(x, c3, b3)), c4, b4))
    return T.dot(T.nnet.relu(T.dot(x.flatten(2), f1) + d1), f2) + d2


def trainer(with_input_gradient):
    """The training step, compiled; with the images' gradient asked for of T.grad, or not."""
    params = [theano.shared(value.copy()) for value in initial]
    cost = T.nnet.categorical_crossentropy(T.nnet.softmax(vggish(images, params)), labels).mean()
    # Theano differentiates with respect to what T.grad is given: the images are one more symbolic input.
    gradients = T.grad(cost, params + ([images] if with_input_gradient else []))
    updates = []
    for w, g in zip(params, gradients):                  # classic momentum, as the CNN tab
        v = theano.shared(np.zeros_like(w.get_value()))
        v_new = hp.momentum * v - hp.learning_rate * g
        updates += [(v, v_new), (w, w + v_new)]
    if with_input_gradient:
        # Kept in a shared variable, so that the compiled graph computes it (it prunes what nothing uses)
        # and no call copies it out.
        kept = theano.shared(np.zeros((1, 1, 1, 1), floatX))
        updates.append((kept, gradients[-1]))
    step = theano.function([images, labels], [], updates=updates)

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            step(x_train[rows], y_train[rows])           # on a CPU, a Theano call returns when it has run
    return train


# %% tags=["variants"]
no_input_gradient = trainer(with_input_gradient=False)   # the weights' gradients only
input_gradient = trainer(with_input_gradient=True)       # and the images' gradient, asked for

# %% tags=["measure"]
lesson.compare(hp, {"no_input_gradient": no_input_gradient, "input_gradient": input_gradient})
