"""PaddlePaddle: paddle.onnx.export traces the layer into a static program and hands it to paddle2onnx."""
import paddle


def inputs(ns, x):
    return x                                             # the neutral batch is (N, 3, 224, 224) already


def export(ns, x, path):
    images = paddle.static.InputSpec([None, *x.shape[1:]], "float32", "images")   # any batch size
    # writes <prefix>.onnx; opset 17, not paddle2onnx's default 9 (the other rows' exporters write 11 to 23)
    paddle.onnx.export(ns["model"], path.removesuffix(".onnx"), input_spec=[images], opset_version=17)
