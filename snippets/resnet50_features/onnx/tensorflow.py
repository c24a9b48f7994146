"""TensorFlow: tf2onnx converts a tf.function, here the model's own (its __call__ is one)."""
import tensorflow as tf
import tf2onnx


def inputs(ns, x):
    return x.transpose(0, 2, 3, 1)                       # the neutral batch is (N, 3, H, W)


def export(ns, x, path):
    signature = [tf.TensorSpec((None, *x.shape[1:]), tf.float32, name="images")]
    tf2onnx.convert.from_function(ns["model"].__call__, input_signature=signature, output_path=path)
