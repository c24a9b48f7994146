"""PaddlePaddle: paddle.onnx.export traces the layer into a static program and hands it to paddle2onnx."""
import numpy as np
import paddle


def inputs(ns, x):
    return x.astype(np.int64)                            # token ids, as nn.Embedding takes them


def export(ns, x, path):
    model = ns["model"]
    model.eval()                                         # inference mode
    tokens = paddle.static.InputSpec([None, x.shape[1]], "int64", "tokens")   # any batch size
    # writes <prefix>.onnx; opset 17, not paddle2onnx's default 9 (the other rows' exporters write 11 to 23)
    paddle.onnx.export(model, path.removesuffix(".onnx"), input_spec=[tokens], opset_version=17)
