"""JAX (Flax NNX): jax2onnx traces a function of arrays; the model's parameters become constants.

jax2onnx (0.17.1) is not in the JAX environment: resolving it into the JAX lock added 32 packages and moved
orbax-checkpoint from 0.12.8 back to 0.11.36, so this export is refused until it can join without moving others.
"""


def inputs(ns, x):
    return x.transpose(0, 2, 3, 1)                       # the neutral batch is (N, 3, 32, 32)


def export(ns, x, path):
    from jax2onnx import to_onnx       # here, not above: a missing exporter refuses this export only
    model = ns["model"]
    model.eval()                                          # dropout off in the traced function
    to_onnx(lambda images: model(images), [("B", *x.shape[1:])], return_mode="file", output_path=path)
