# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # Subnormal numbers in a matrix product, in Chainer

# %% tags=["setup"]
import chainer.functions as F
import numpy as np

from rosetta import lesson

hp = lesson.settings("subnormal_numbers")
try:
    import cupy as xp                                                # arrays on the GPU through CuPy
except ImportError:
    xp = np
rng = np.random.default_rng(hp.seed)
rows = hp.batch_size * hp.max_length                                 # every time step of every sequence
states = xp.asarray(rng.standard_normal((rows, hp.hidden_size), dtype=np.float32))
gate_gradients = xp.asarray(rng.standard_normal((rows, 3 * hp.hidden_size), dtype=np.float32))
tiny = gate_gradients * np.float32(hp.scale)                         # below 1.2e-38: subnormal float32
print("smallest normal float32", np.finfo(np.float32).tiny, "| largest scaled value", float(abs(tiny).max()))


# %% tags=["variants"]
# The weight gradient of the recurrent kernel: the states transposed times the gates' gradients
# (on a CPU, Chainer hands it to NumPy, and NumPy to OpenBLAS).
def product(gradients):
    def call():
        for _ in range(hp.calls):
            out = F.matmul(states, gradients, transa=True)
        float(out.array.sum())                                       # waits for the GPU, if there is one
    return call


# %% tags=["measure"]
lesson.compare(hp, {"normal": product(gate_gradients), "subnormal": product(tiny)})
