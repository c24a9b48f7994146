"""JAX (Flax NNX): jax2onnx traces a function of arrays; the model's parameters become constants.

jax2onnx (0.17.1) is not in the JAX environment: resolving it into the JAX lock added 32 packages and moved
orbax-checkpoint from 0.12.8 back to 0.11.36, so this export is refused until it can join without moving others.
"""


def inputs(ns, x):
    return x                                             # token ids (int32)


def export(ns, x, path):
    from jax2onnx import to_onnx       # here, not above: a missing exporter refuses this export only
    model = ns["model"]
    to_onnx(lambda tokens: model(tokens), [("B", *x.shape[1:])], return_mode="file", output_path=path)
