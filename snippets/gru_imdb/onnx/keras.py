"""Keras 3: model.export(format="onnx") asks the backend's own converter (tf2onnx on TensorFlow,
torch.onnx on PyTorch, jax2onnx on JAX, in an environment of its own: see the JAX tab)."""


def inputs(ns, x):
    return x                                             # token ids (int32), as the snippet feeds them


def export(ns, x, path):
    ns["model"].export(path, format="onnx")
