"""TensorFlow: tf2onnx converts a tf.function, here the model's inference call (its tf.foldl over the time
steps becomes an ONNX Loop)."""
import tensorflow as tf
import tf2onnx


def inputs(ns, x):
    return x                                             # token ids (int32)


def export(ns, x, path):
    model = ns["model"]
    infer = tf.function(lambda tokens: model(tokens))
    signature = [tf.TensorSpec((None, *x.shape[1:]), tf.int32, name="tokens")]
    tf2onnx.convert.from_function(infer, input_signature=signature, output_path=path)
