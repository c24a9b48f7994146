"""JAX (Flax NNX): jax2onnx traces a function of arrays; the model's parameters become constants.

jax2onnx (0.17.1) is not in the JAX environment: it requires orbax-checkpoint >=0.11.6,<0.11.37, the environment
pins Flax's 0.12.8, and moving it back would change the environment the JAX rows are timed in; so this export is
refused until they agree.
"""


def inputs(ns, x):
    return x                                             # token ids (int32)


def export(ns, x, path):
    from jax2onnx import to_onnx       # here, not above: a missing exporter refuses this export only
    model = ns["model"]
    to_onnx(lambda tokens: model(tokens), [("B", *x.shape[1:])], return_mode="file", output_path=path)
