# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # A convolution and its two gradients, in Chainer

# %% tags=["setup"]
import chainer
import chainer.functions as F
import numpy as np
from chainer.functions.connection.convolution_2d import Convolution2DFunction, Convolution2DGradW

from rosetta import lesson

hp = lesson.settings("convolution_gradients")
try:
    import cupy as xp                                                # arrays on the GPU through CuPy
except ImportError:
    xp = np
rng = np.random.default_rng(hp.seed)
shape = (hp.batch_size, hp.channels, hp.size, hp.size)              # channels first: Chainer's layout
images = xp.asarray(rng.standard_normal(shape, dtype=np.float32))
kernel = xp.asarray(rng.standard_normal((hp.channels, hp.channels, 3, 3), dtype=np.float32))   # (out, in, h, w)
output_gradient = xp.asarray(rng.standard_normal(shape, dtype=np.float32))   # what the layer above hands back

# %% tags=["variants"]
# The three convolutions of one layer's training step, as Convolution2DFunction.backward calls them:
# the input gradient is a transposed convolution (deconvolution_2d), the kernel gradient a node of its own.
convolution = Convolution2DFunction(pad=1)
convolution.apply((images, kernel))                                  # the node its gradient node reads


def forward():
    return F.convolution_2d(images, kernel, pad=1)


def input_gradient():
    return F.deconvolution_2d(output_gradient, kernel, pad=1, outsize=(hp.size, hp.size))


def kernel_gradient():
    return Convolution2DGradW(convolution, kernel.shape, kernel.dtype, None).apply((images, output_gradient))[0]


def repeated(part):
    def call():
        with chainer.no_backprop_mode():
            for _ in range(hp.calls):
                out = part()
        float(out.array.sum())                                       # waits for the GPU, if there is one
    return call


print("forward", forward().shape, "input gradient", input_gradient().shape, "kernel gradient", kernel_gradient().shape)

# %% tags=["measure"]
lesson.compare(hp, {name: repeated(part) for name, part in
                    {"forward": forward, "input_gradient": input_gradient, "kernel_gradient": kernel_gradient}.items()})
