# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: JAX'
#     language: python
#     name: rosetta-jax
# ---

# %% [markdown]
# # A convolution and its two gradients, in JAX

# %% tags=["setup"]
import jax

from rosetta import lesson

hp = lesson.settings("convolution_gradients")
jax.config.update("jax_default_matmul_precision", "highest")        # float32, as the CNN's tab computes
images_key, kernel_key, gradient_key = jax.random.split(jax.random.key(hp.seed), 3)
shape = (hp.batch_size, hp.size, hp.size, hp.channels)              # channels last: Flax's layout
images = jax.random.normal(images_key, shape)
kernel = jax.random.normal(kernel_key, (3, 3, hp.channels, hp.channels))   # (height, width, in, out)
output_gradient = jax.random.normal(gradient_key, shape)            # what the layer above hands back


def conv(x, w):                                                     # 3 × 3, padding 1: "SAME", as nnx.Conv
    return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


# %% tags=["variants"]
# Each part compiled on its own. A convolution is linear in each argument, so the pull-back that jax.vjp
# returns needs no forward output: XLA drops the forward pass from the compiled gradient.
forward = jax.jit(conv)
input_gradient = jax.jit(lambda x, w, g: jax.vjp(lambda x: conv(x, w), x)[1](g)[0])
kernel_gradient = jax.jit(lambda x, w, g: jax.vjp(lambda w: conv(x, w), w)[1](g)[0])
parts = {"forward": lambda: forward(images, kernel),
         "input_gradient": lambda: input_gradient(images, kernel, output_gradient),
         "kernel_gradient": lambda: kernel_gradient(images, kernel, output_gradient)}


def repeated(part):
    def call():
        for _ in range(hp.calls):
            out = part()
        out.block_until_ready()                                     # asynchronous dispatch: wait for it
    return call


print({name: part().shape for name, part in parts.items()})         # compiles each part once

# %% tags=["measure"]
lesson.compare(hp, {name: repeated(part) for name, part in parts.items()})
