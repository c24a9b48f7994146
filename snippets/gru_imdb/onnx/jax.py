"""JAX (Flax NNX): jax2onnx traces a function of arrays; the model's parameters become constants.

The export runs in an environment of its own (envs/jax-onnx.txt): the same jax, flax and keras as the JAX row's,
with jax2onnx, whose orbax-checkpoint pin does not fit Flax's in the timed environment.
"""


def inputs(ns, x):
    return x                                             # token ids (int32)


def export(ns, x, path):
    import jax
    from flax import nnx
    from jax2onnx import to_onnx       # here, not above: a missing exporter refuses this export only

    # A pure function of the tokens, as JAX transforms trace: the module rebuilt inside it with fresh variables
    # (given the module itself, nnx.RNN's scan met variables of another trace level and refused).
    graph, state = nnx.split(ns["model"])
    tokens = jax.ShapeDtypeStruct(jax.export.symbolic_shape(f"B, {x.shape[1]}"), x.dtype)   # B: any batch, int32
    to_onnx(lambda t: nnx.merge(graph, state, copy=True)(t), [tokens], return_mode="file", output_path=path)
