# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # Chainer's convolution on a CPU, taken apart

# %% tags=["setup"]
import chainer
import chainer.functions as F
import numpy as np
from chainer.utils import conv

from rosetta import lesson

hp = lesson.settings("chainer_convolution")
rng = np.random.default_rng(hp.seed)
images = rng.standard_normal((hp.batch_size, hp.channels, hp.size, hp.size), dtype=np.float32)   # channels first
kernel = rng.standard_normal((hp.channels, hp.channels, 3, 3), dtype=np.float32)   # (out, in, height, width)
print(f"Chainer {chainer.__version__}, NumPy {np.__version__}; iDeep in use:",
      chainer.backends.intel64.should_use_ideep(">=auto"))

# %% tags=["variants"]
# What convolution_2d's CPU path does, one part at a time (chainer/functions/connection/convolution_2d.py).
columns = conv.im2col_cpu(images, 3, 3, 1, 1, 1, 1)                # (batch, in, 3, 3, height, width)
# numpy.tensordot(columns, kernel, ((1, 2, 3), (1, 2, 3))) moves the summed axes last and reshapes:
# a copy, since they are not last in memory. The product then multiplies two matrices.
as_matrix = np.ascontiguousarray(columns.transpose(0, 4, 5, 1, 2, 3)).reshape(-1, hp.channels * 9)
kernel_matrix = kernel.reshape(hp.channels, -1).T                    # (in × 3 × 3, out)
parts = {"convolution": lambda: F.convolution_2d(images, kernel, pad=1),
         "im2col": lambda: conv.im2col_cpu(images, 3, 3, 1, 1, 1, 1),
         "layout_copy": lambda: np.ascontiguousarray(columns.transpose(0, 4, 5, 1, 2, 3)),
         "matrix_product": lambda: as_matrix @ kernel_matrix}


def repeated(part):
    def call():
        for _ in range(hp.calls):
            part()
    return call


# The parts compute the convolution: the product's rows, put back in place, are convolution_2d's output.
rebuilt = (as_matrix @ kernel_matrix).reshape(hp.batch_size, hp.size, hp.size, hp.channels).transpose(0, 3, 1, 2)
difference = float(np.abs(rebuilt - F.convolution_2d(images, kernel, pad=1).array).max())
print("columns", columns.shape, f"{columns.nbytes / 1e6:.0f} MB;", "largest difference from convolution_2d", difference)

# %% tags=["measure"]
lesson.compare(hp, {name: repeated(part) for name, part in parts.items()},
               facts={"matrix_product": {"max_difference": difference}})
