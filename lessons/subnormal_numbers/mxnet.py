# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # Subnormal numbers in a matrix product, in MXNet

# %% tags=["setup"]
import mxnet as mx
import numpy as np

from rosetta import lesson

hp = lesson.settings("subnormal_numbers")
mx.random.seed(hp.seed)
context = mx.gpu() if mx.context.num_gpus() else mx.cpu()
rows = hp.batch_size * hp.max_length                                 # every time step of every sequence
states = mx.nd.random.normal(shape=(rows, hp.hidden_size), ctx=context)
gate_gradients = mx.nd.random.normal(shape=(rows, 3 * hp.hidden_size), ctx=context)
tiny = mx.nd.array(gate_gradients.asnumpy() * np.float32(hp.scale), ctx=context)   # below 1.2e-38: subnormal
print("smallest normal float32", np.finfo(np.float32).tiny, "| largest scaled value", np.abs(tiny.asnumpy()).max())


# %% tags=["variants"]
# The weight gradient of the recurrent kernel: the states transposed times the gates' gradients.
def product(gradients):
    def call():
        for _ in range(hp.calls):
            out = mx.nd.dot(states, gradients, transpose_a=True)
        out.wait_to_read()                                           # MXNet's engine is asynchronous
    return call


# %% tags=["measure"]
lesson.compare(hp, {"normal": product(gate_gradients), "subnormal": product(tiny)})
