# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # Subnormal numbers in a matrix product, in PaddlePaddle

# %% tags=["setup"]
import os

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import paddle

from rosetta import lesson

hp = lesson.settings("subnormal_numbers")
paddle.seed(hp.seed)
paddle.set_device("gpu" if paddle.device.cuda.device_count() else "cpu")        # new tensors go there
rows = hp.batch_size * hp.max_length                                 # every time step of every sequence
states = paddle.randn([rows, hp.hidden_size])
gate_gradients = paddle.randn([rows, 3 * hp.hidden_size])
tiny = gate_gradients * hp.scale                                     # below 1.2e-38: subnormal float32
# Paddle's dynamic graph leaves the processor's default (no flush to zero: the scaling above keeps its
# subnormal results), and no Python setting changes it; only its C++ inference executor sets FTZ and DAZ
# around a run. Without FLAGS_use_mkldnn (off: Paddle's default), paddle.matmul is Paddle's own CPU kernel, a
# call to its BLAS (MKL), which the gradients of its GRU's rnn operator call too.
print("smallest normal float32", paddle.finfo(paddle.float32).tiny, "| largest scaled value", tiny.abs().max().item())


# %% tags=["variants"]
# The weight gradient of the recurrent kernel: the states transposed times the gates' gradients
# (transpose_x: the BLAS call reads the states transposed, no copy).
def product(gradients):
    def call():
        for _ in range(hp.calls):
            out = paddle.matmul(states, gradients, transpose_x=True)
        out.sum().item()                                             # waits for the GPU, if there is one
    return call


# %% tags=["measure"]
lesson.compare(hp, {"normal": product(gate_gradients), "subnormal": product(tiny)})
