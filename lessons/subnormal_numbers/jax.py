# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: JAX'
#     language: python
#     name: rosetta-jax
# ---

# %% [markdown]
# # Subnormal numbers in a matrix product, in JAX

# %% tags=["setup"]
import jax
import jax.numpy as jnp
import numpy as np

from rosetta import lesson

hp = lesson.settings("subnormal_numbers")
jax.config.update("jax_default_matmul_precision", "highest")        # float32, as the GRU's tab computes
states_key, gradients_key = jax.random.split(jax.random.key(hp.seed))
rows = hp.batch_size * hp.max_length                                 # every time step of every sequence
states = jax.random.normal(states_key, (rows, hp.hidden_size))
gate_gradients = jax.random.normal(gradients_key, (rows, 3 * hp.hidden_size))
# Scaled on the host: an XLA computation would flush the result to zero itself.
tiny = jnp.asarray(np.asarray(gate_gradients) * np.float32(hp.scale))  # below 1.2e-38: subnormal float32
largest = np.abs(np.asarray(tiny)).max()                            # in NumPy: XLA would read it as zero
print("smallest normal float32", np.finfo(np.float32).tiny, "| largest scaled value", largest)

# %% tags=["variants"]
# The weight gradient of the recurrent kernel: the states transposed times the gates' gradients.
# XLA's CPU runtime sets flush-to-zero on the threads that run its code.
weight_gradient = jax.jit(lambda gradients: states.T @ gradients)


def product(gradients):
    def call():
        for _ in range(hp.calls):
            out = weight_gradient(gradients)
        out.block_until_ready()                                      # asynchronous dispatch: wait for it
    return call


# %% tags=["measure"]
lesson.compare(hp, {"normal": product(gate_gradients), "subnormal": product(tiny)})
