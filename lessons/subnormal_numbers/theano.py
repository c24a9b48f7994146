# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Theano'
#     language: python
#     name: rosetta-theano
# ---

# %% [markdown]
# # Subnormal numbers in a matrix product, in Theano

# %% tags=["setup"]
import sys

import numpy as np

sys.modules["theano.scan_module.scan_perform_ext"] = None   # scan's Cython loop: no build on 3.11 (the GRU tab)
import theano
import theano.tensor as T

from rosetta import lesson

hp = lesson.settings("subnormal_numbers")
rng = np.random.default_rng(hp.seed)
hidden = hp.hidden_size
rows = hp.batch_size * hp.max_length                                 # every time step of every sequence
hidden_states = theano.shared(rng.standard_normal((rows, hidden), dtype=np.float32))
gate_gradients = rng.standard_normal((rows, 3 * hidden), dtype=np.float32)
tiny = gate_gradients * np.float32(hp.scale)                         # below 1.2e-38: subnormal float32
print("smallest normal float32", np.finfo(np.float32).tiny, "| largest scaled value", float(abs(tiny).max()))

# %% tags=["variants"]
# The weight gradient of the recurrent kernel: the states transposed times the gates' gradients, compiled
# once (Theano's Dot22, a call of the BLAS library's sgemm).
gradients = T.matrix("gradients")
weight_gradient = theano.function([gradients], T.dot(hidden_states.T, gradients))


def product(values):
    def call():
        for _ in range(hp.calls):
            weight_gradient(values)
    return call


# How many of a real gate gradient's values are subnormal: the GRU benchmark's layer and loss at their
# start (weights and embedded tokens uniform in ±init_scale, the loss on the last hidden state), the
# gradient taken with respect to the gates' input products, as the tab's backward pass computes it.
def uniform(*shape):
    return rng.uniform(-hp.init_scale, hp.init_scale, shape).astype(np.float32)


input_kernel, recurrent_kernel, fc_kernel = (uniform(hp.embedding_size, 3 * hidden), uniform(hidden, 3 * hidden),
                                             uniform(hidden, 2))


def gru_step(x, h):
    u = T.dot(h, recurrent_kernel)
    r = T.nnet.sigmoid(x[:, :hidden] + u[:, :hidden])
    z = T.nnet.sigmoid(x[:, hidden:2 * hidden] + u[:, hidden:2 * hidden])
    return (1 - z) * T.tanh(x[:, 2 * hidden:] + r * u[:, 2 * hidden:]) + z * h


embedded, labels = T.tensor3("embedded"), T.ivector("labels")      # time first: (steps, batch, embedding)
gate_inputs = T.dot(embedded, input_kernel)
states, _ = theano.scan(gru_step, sequences=gate_inputs, outputs_info=T.zeros((hp.batch_size, hidden)))
loss = T.nnet.categorical_crossentropy(T.nnet.softmax(T.dot(states[-1], fc_kernel)), labels).mean()
# Only its values matter here, not its speed: the "py" linker runs the graph with Theano's Python implementations
# of the ops, without generating and compiling C code for it (which took 40 s on a cold cache).
gru_gradient = theano.function([embedded, labels], T.grad(loss, gate_inputs),
                               mode=theano.Mode(linker="py", optimizer="fast_compile"))(
    uniform(hp.max_length, hp.batch_size, hp.embedding_size), rng.integers(0, 2, hp.batch_size).astype(np.int32))
share = float(((gru_gradient != 0) & (np.abs(gru_gradient) < np.finfo(np.float32).tiny)).mean())
print(f"the GRU's gate gradient: {share:.4%} of its values subnormal")

# %% tags=["measure"]
lesson.compare(hp, {"normal": product(gate_gradients), "subnormal": product(tiny)},
               facts={"subnormal": {"share_in_gru_gradient": share}})
