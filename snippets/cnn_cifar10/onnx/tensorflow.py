"""TensorFlow: tf2onnx converts a tf.function, here the model's inference call."""
import tensorflow as tf
import tf2onnx


def inputs(ns, x):
    return x.transpose(0, 2, 3, 1)                       # the neutral batch is (N, 3, 32, 32)


def export(ns, x, path):
    model = ns["model"]
    infer = tf.function(lambda images: model(images, training=False))
    signature = [tf.TensorSpec((None, *x.shape[1:]), tf.float32, name="images")]
    tf2onnx.convert.from_function(infer, input_signature=signature, output_path=path)
