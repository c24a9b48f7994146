# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Theano'
#     language: python
#     name: rosetta-theano
# ---

# %% [markdown]
# # Keep the data in the framework's arrays, in Theano

# %% tags=["setup"]
import numpy as np
import theano
import theano.tensor as T

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("framework_arrays")
floatX = theano.config.floatX
x_numpy, y_numpy, _, _ = cifar10.load(hp, layout="NCHW")
x_numpy = x_numpy.reshape(len(x_numpy), -1)                      # an MLP reads each image as 3072 values
y_numpy = y_numpy.astype("int32")
n_batches = len(x_numpy) // hp.batch_size
rng = np.random.default_rng(hp.seed)
initial = []
for n_in, n_out in [(3072, hp.hidden), (hp.hidden, 10)]:        # 3072-512-10: cheap steps, so feeding them shows
    limit = np.sqrt(6 / (n_in + n_out))                         # Glorot-uniform, zero biases
    initial += [rng.uniform(-limit, limit, (n_in, n_out)).astype(floatX), np.zeros(n_out, floatX)]


def step_graph(images, labels):
    """The MLP's loss and its SGD-with-momentum updates, on fresh copies of the same starting weights."""
    w1, b1, w2, b2 = params = [theano.shared(value.copy()) for value in initial]
    logits = T.dot(T.nnet.relu(T.dot(images, w1) + b1), w2) + b2
    cost = T.nnet.categorical_crossentropy(T.nnet.softmax(logits), labels).mean()
    updates = []
    for w, g in zip(params, T.grad(cost, params)):               # classic momentum, as the CNN tab
        v = theano.shared(np.zeros_like(w.get_value()))
        v_new = hp.momentum * v - hp.learning_rate * g
        updates += [(v, v_new), (w, w + v_new)]
    return cost, updates


# %% tags=["variants"]
# Theano's own arrays are shared variables: on a GPU they live in its memory. The tutorials' idiom keeps
# the whole training set in them and hands the compiled step a batch index: `givens` slices the batch
# inside the graph, so nothing crosses from Python.
x_shared, y_shared = theano.shared(x_numpy), theano.shared(y_numpy)   # converted once
index = T.lscalar("index")
images, labels = T.matrix("images"), T.ivector("labels")
rows = slice(index * hp.batch_size, (index + 1) * hp.batch_size)
cost, updates = step_graph(images, labels)
step_on_index = theano.function([index], cost, updates=updates,
                                givens={images: x_shared[rows], labels: y_shared[rows]})
# Without them, each batch is a NumPy slice passed in at every call, which Theano checks (and on a GPU copies).
cost, updates = step_graph(images, labels)
step_on_arrays = theano.function([images, labels], cost, updates=updates)


def framework_arrays():
    for i in range(n_batches):
        step_on_index(i)                                 # on a CPU, a Theano call returns when it has run


def converted_per_step():
    for i in range(n_batches):
        batch = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
        step_on_arrays(x_numpy[batch], y_numpy[batch])


# %% tags=["measure"]
lesson.compare(hp, {"framework_arrays": framework_arrays, "converted_per_step": converted_per_step})
