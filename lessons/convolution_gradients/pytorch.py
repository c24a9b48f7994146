# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # A convolution and its two gradients, in PyTorch

# %% tags=["setup"]
import torch
import torch.nn.functional as F

from rosetta import lesson

hp = lesson.settings("convolution_gradients")
torch.manual_seed(hp.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
shape = (hp.batch_size, hp.channels, hp.size, hp.size)              # channels first: PyTorch's default
images = torch.randn(shape, device=device)
kernel = torch.randn(hp.channels, hp.channels, 3, 3, device=device)  # (out, in, height, width)
output_gradient = torch.randn(shape, device=device)                  # what the layer above hands back

# %% tags=["variants"]
# The three convolutions of one layer's training step; the gradients as autograd's backward computes them.
def forward():
    return F.conv2d(images, kernel, padding=1)


def input_gradient():
    return torch.nn.grad.conv2d_input(images.shape, kernel, output_gradient, padding=1)


def kernel_gradient():
    return torch.nn.grad.conv2d_weight(images, kernel.shape, output_gradient, padding=1)


def repeated(part):
    def call():
        with torch.no_grad():
            for _ in range(hp.calls):
                out = part()
        out.sum().item()                                   # waits for the GPU, if there is one
    return call


print("forward", tuple(forward().shape), "input gradient", tuple(input_gradient().shape),
      "kernel gradient", tuple(kernel_gradient().shape))

# %% tags=["measure"]
lesson.compare(hp, {name: repeated(part) for name, part in
                    {"forward": forward, "input_gradient": input_gradient, "kernel_gradient": kernel_gradient}.items()})
