"""JAX (Flax NNX): jax2onnx traces a function of arrays; the model's parameters become constants.

The export runs in an environment of its own (envs/jax-onnx.txt): the same jax, flax and keras as the JAX row's,
with jax2onnx, whose orbax-checkpoint pin does not fit Flax's in the timed environment.
"""


def inputs(ns, x):
    return x.transpose(0, 2, 3, 1)                       # the neutral batch is (N, 3, H, W)


def export(ns, x, path):
    from jax2onnx import to_onnx       # here, not above: a missing exporter refuses this export only
    model = ns["model"]                                  # in eval(): batch norm with its running statistics
    to_onnx(model, [("B", *x.shape[1:])], return_mode="file", output_path=path)   # "B": any batch size
