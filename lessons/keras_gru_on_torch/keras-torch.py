# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Keras 3 · PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # Keras 3's GRU on the PyTorch backend, against torch.nn.GRU

# %% tags=["setup"]
import keras
import torch

from rosetta import lesson

hp = lesson.settings("keras_gru_on_torch")
assert keras.backend.backend() == "torch", "this row runs with KERAS_BACKEND=torch"
keras.utils.set_random_seed(hp.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
reviews = torch.randn(hp.batch_size, hp.max_length, hp.embedding_size, device=device)   # embedded tokens
last_gradient = torch.randn(hp.batch_size, hp.hidden_size, device=device)   # what the classifier hands back

# %% tags=["variants"]
# The benchmark's Keras layer (cuDNN's formulation, reset_after=True, PyTorch's as well).
keras_gru = keras.layers.GRU(hp.hidden_size)
keras_gru.build((None, hp.max_length, hp.embedding_size))
kernel, recurrent, bias = (w.value for w in keras_gru.weights)   # (in, 3h), (h, 3h), (2, 3h): gates z, r, n

# torch.nn.GRU with the same weights: PyTorch stores each matrix transposed, its gates in the order r, z, n.
torch_gru = torch.nn.GRU(hp.embedding_size, hp.hidden_size, batch_first=True).to(device)


def torch_order(matrix):
    z, r, n = matrix.chunk(3, dim=-1)
    return torch.cat([r, z, n], dim=-1)


with torch.no_grad():
    torch_gru.weight_ih_l0.copy_(torch_order(kernel).T)
    torch_gru.weight_hh_l0.copy_(torch_order(recurrent).T)
    torch_gru.bias_ih_l0.copy_(torch_order(bias[0]))
    torch_gru.bias_hh_l0.copy_(torch_order(bias[1]))


def keras_last(x):
    return keras_gru(x)                          # the last hidden state, (batch, hidden)


def torch_last(x):
    return torch_gru(x)[1][0]                    # h_n of the one layer


def training_step(last, weights):
    """Forward over the sequence, then the weights' gradients for the classifier's output gradient."""
    def call():
        for _ in range(hp.steps):
            gradients = torch.autograd.grad(last(reviews), weights, grad_outputs=last_gradient)
        gradients[0].sum().item()                # waits for the GPU, if there is one
    return call


with torch.no_grad():
    difference = (keras_last(reviews) - torch_last(reviews)).abs().max().item()
print(f"largest difference of the last hidden states: {difference:.2e}")

# %% tags=["measure"]
lesson.compare(hp, {"keras_gru": training_step(keras_last, [kernel, recurrent, bias]),
                    "torch_gru": training_step(torch_last, list(torch_gru.parameters()))},
               facts={"keras_gru": {"max_difference": difference}})
