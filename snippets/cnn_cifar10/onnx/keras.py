"""Keras 3: model.export(format="onnx") asks the backend's own converter (tf2onnx on TensorFlow,
torch.onnx on PyTorch, jax2onnx on JAX, in an environment of its own: see the JAX tab)."""
import keras


def inputs(ns, x):
    # The snippet runs channels last on a CPU (keras.config.image_data_format()); the neutral batch is NCHW.
    return x.transpose(0, 2, 3, 1) if keras.config.image_data_format() == "channels_last" else x


def export(ns, x, path):
    ns["model"].export(path, format="onnx")
