# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # Subnormal numbers in a matrix product, in PyTorch

# %% tags=["setup"]
import torch

from rosetta import lesson

hp = lesson.settings("subnormal_numbers")
torch.manual_seed(hp.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
rows = hp.batch_size * hp.max_length                                 # every time step of every sequence
states = torch.randn(rows, hp.hidden_size, device=device)
gate_gradients = torch.randn(rows, 3 * hp.hidden_size, device=device)
tiny = gate_gradients * hp.scale                                     # below 1.2e-38: subnormal float32
# PyTorch leaves the processor's default (no flush to zero); torch.set_flush_denormal(True) changes it for
# this process's CPU threads.
print("smallest normal float32", torch.finfo(torch.float32).tiny, "| largest scaled value", tiny.abs().max().item())


# %% tags=["variants"]
# The weight gradient of the recurrent kernel: the states transposed times the gates' gradients.
def product(gradients):
    def call():
        for _ in range(hp.calls):
            out = states.T @ gradients
        out.sum().item()                                             # waits for the GPU, if there is one
    return call


# %% tags=["measure"]
lesson.compare(hp, {"normal": product(gate_gradients), "subnormal": product(tiny)})
