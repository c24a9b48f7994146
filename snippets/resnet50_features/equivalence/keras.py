"""Neutral ResNet-50 weights <-> the Keras snippet's keras.applications.ResNet50.

Keras names the stages conv2..conv5 (neutral layer1..layer4), counts blocks from 1, calls the
projection shortcut "_0_" and keeps conv kernels (h, w, in, out) with a bias (set to 0), on every
backend and in either image layout.
"""
import keras
import numpy as np


def _names(weights):
    """neutral prefix -> (Keras conv layer, Keras batch-norm layer)."""
    pairs = {"conv1": ("conv1_conv", "conv1_bn")}
    stages = sorted({name.split(".")[0] for name in weights if name.startswith("layer")})
    for stage in stages:
        blocks = sorted({int(name.split(".")[1]) for name in weights if name.startswith(stage + ".")})
        for block in blocks:
            keras_block = f"conv{int(stage[5:]) + 1}_block{block + 1}"
            for i in (1, 2, 3):
                pairs[f"{stage}.{block}.conv{i}"] = (f"{keras_block}_{i}_conv", f"{keras_block}_{i}_bn")
            if f"{stage}.{block}.downsample.0.weight" in weights:
                pairs[f"{stage}.{block}.downsample"] = (f"{keras_block}_0_conv", f"{keras_block}_0_bn")
    return pairs


def _bn_name(prefix):
    """The neutral name of the batch norm after the conv called `prefix`."""
    if prefix == "conv1":
        return "bn1"
    if prefix.endswith("downsample"):
        return prefix + ".1"
    return prefix[:-5] + "bn" + prefix[-1]


def _conv_name(prefix):
    return prefix + ".0" if prefix.endswith("downsample") else prefix


def load(ns, weights, x):
    model = ns["model"]
    for prefix, (conv, bn) in _names(weights).items():
        kernel = weights[f"{_conv_name(prefix)}.weight"].transpose(2, 3, 1, 0)   # -> (h, w, in, out)
        layer = model.get_layer(conv)
        layer.set_weights([kernel] + [np.zeros(kernel.shape[-1], np.float32)] * layer.use_bias)
        b = _bn_name(prefix)
        model.get_layer(bn).set_weights([weights[f"{b}.weight"], weights[f"{b}.bias"],
                                         weights[f"{b}.running_mean"], weights[f"{b}.running_var"]])
    ns["neutral_names"] = list(weights)


def read(ns):
    model, out = ns["model"], {}
    for prefix, (conv, bn) in _names(ns["neutral_names"]).items():
        out[f"{_conv_name(prefix)}.weight"] = model.get_layer(conv).get_weights()[0].transpose(3, 2, 0, 1)
        b = _bn_name(prefix)
        gamma, beta, mean, var = model.get_layer(bn).get_weights()
        out.update({f"{b}.weight": gamma, f"{b}.bias": beta, f"{b}.running_mean": mean, f"{b}.running_var": var})
    return out


def forward(ns, x):
    if keras.config.image_data_format() == "channels_last":
        x = x.transpose(0, 2, 3, 1)                      # neutral images are (N, C, H, W)
    return keras.ops.convert_to_numpy(ns["model"](x, training=False))
