# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Theano'
#     language: python
#     name: rosetta-theano
# ---

# %% [markdown]
# # Theano's elementwise tanh, against NumPy's

# %% tags=["setup"]
import numpy as np
import theano
import theano.tensor as T

from rosetta import lesson

hp = lesson.settings("theano_elementwise")
rng = np.random.default_rng(hp.seed)
hidden = hp.hidden_size
# One time step's products for every step of a call: the inputs' x W + b and the recurrent h U + b, all
# gates side by side (r, z, n), and the previous hidden state.
inputs = rng.standard_normal((hp.steps, hp.batch_size, 3 * hidden), dtype=np.float32)
recurrent = rng.standard_normal((hp.steps, hp.batch_size, 3 * hidden), dtype=np.float32)
previous = rng.standard_normal((hp.steps, hp.batch_size, hidden), dtype=np.float32)
candidates = inputs[:, :, 2 * hidden:]                               # what the candidate gate's tanh reads

# %% tags=["variants"]
# The Theano tab's gru_step after its product: theano.function fuses the gates into one elementwise op,
# whose C code calls the C library's tanh (and Theano's own sigmoid) once per element.
x, u, h = T.matrix("x"), T.matrix("u"), T.matrix("h")
r = T.nnet.sigmoid(x[:, :hidden] + u[:, :hidden])
z = T.nnet.sigmoid(x[:, hidden:2 * hidden] + u[:, hidden:2 * hidden])
n = T.tanh(x[:, 2 * hidden:] + r * u[:, 2 * hidden:])
theano_step = theano.function([x, u, h], (1 - z) * n + z * h)
theano_tanh = theano.function([x], T.tanh(x))


def sigmoid(a):
    return 1 / (1 + np.exp(-a))


def numpy_step(x, u, h):
    r = sigmoid(x[:, :hidden] + u[:, :hidden])
    z = sigmoid(x[:, hidden:2 * hidden] + u[:, hidden:2 * hidden])
    n = np.tanh(x[:, 2 * hidden:] + r * u[:, 2 * hidden:])
    return (1 - z) * n + z * h


def every_step(step, *arrays):
    def call():
        for t in range(hp.steps):
            step(*(a[t] for a in arrays))
    return call


difference = max(float(np.abs(theano_step(inputs[t], recurrent[t], previous[t]) -
                              numpy_step(inputs[t], recurrent[t], previous[t])).max()) for t in range(hp.steps))
print(f"Theano {theano.__version__}, NumPy {np.__version__}; largest difference between the two steps", difference)

# %% tags=["measure"]
lesson.compare(hp, {"theano_tanh": every_step(theano_tanh, candidates),
                    "numpy_tanh": every_step(np.tanh, candidates),
                    "theano_gates": every_step(theano_step, inputs, recurrent, previous),
                    "numpy_gates": every_step(numpy_step, inputs, recurrent, previous)},
               facts={"theano_gates": {"max_difference": difference}})
