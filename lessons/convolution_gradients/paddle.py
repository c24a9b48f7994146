# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # A convolution and its two gradients, in PaddlePaddle
# Paddle has no public function for a convolution's gradients alone (PyTorch's `torch.nn.grad`): its autograd
# runs one backward node, `conv2d_grad`, which computes only the gradients asked for. So each gradient is
# `paddle.grad` of a convolution recorded once, with only its own input needing a gradient (as MXNet's
# `grad_req`). On a CPU, Paddle 3.3's dynamic graph runs its own kernels for all three, oneDNN's flag or not
# (no operation selects a oneDNN kernel): im2col (col2im for the input gradient) and MKL's matrix products.

# %% tags=["setup"]
import os

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import paddle
import paddle.nn.functional as F

from rosetta import lesson

hp = lesson.settings("convolution_gradients")
paddle.seed(hp.seed)
shape = [hp.batch_size, hp.channels, hp.size, hp.size]             # channels first: Paddle's default
images = paddle.randn(shape)                                        # on the GPU, if there is one
kernel = paddle.randn([hp.channels, hp.channels, 3, 3])            # (out, in, height, width)
output_gradient = paddle.randn(shape)                               # what the layer above hands back


# %% tags=["variants"]
# The three convolutions of one layer's training step; the gradients as autograd's backward computes them.
def forward():
    return F.conv2d(images, kernel, padding=1)


def gradient(wrt):
    """The convolution recorded once, only `wrt` ("images" or "kernel") needing its gradient; each call
    runs the recorded backward node (retain_graph: again and again), which computes that gradient alone."""
    inputs = {"images": images.detach(), "kernel": kernel.detach()}
    inputs[wrt].stop_gradient = False                   # Paddle's requires_grad: off by default
    output = F.conv2d(inputs["images"], inputs["kernel"], padding=1)
    return lambda: paddle.grad(output, inputs[wrt], grad_outputs=output_gradient, retain_graph=True)[0]


parts = {"forward": forward, "input_gradient": gradient("images"), "kernel_gradient": gradient("kernel")}


def repeated(part):
    # Nothing is recorded in a call: the forward pass reads tensors that need no gradient, and
    # paddle.grad records nothing without create_graph=True.
    def call():
        for _ in range(hp.calls):
            out = part()
        out.sum().item()                                # waits for the GPU, if there is one
    return call


print({name: tuple(part().shape) for name, part in parts.items()})

# %% tags=["measure"]
lesson.compare(hp, {name: repeated(part) for name, part in parts.items()})
