"""Neutral ResNet-50 weights <-> the TensorFlow snippet's ResNet50 (a tf.Module written with tf.nn ops).

model.conv1 and each block's conv1..conv3 and downsample are ConvBN modules: a kernel (h, w, in, out)
without bias and the batch norm's scale, offset, mean and variance (neutral weight, bias, running_mean,
running_var). model.stages[i] is the neutral layer{i + 1}.
"""
import tensorflow as tf

BATCH_NORM = (("weight", "scale"), ("bias", "offset"), ("running_mean", "mean"), ("running_var", "variance"))


def _pairs(model):
    """(neutral conv name, neutral batch-norm name, ConvBN), in network order."""
    yield "conv1", "bn1", model.conv1
    for stage_index, stage in enumerate(model.stages, 1):
        for block_index, block in enumerate(stage):
            prefix = f"layer{stage_index}.{block_index}"
            for i in (1, 2, 3):
                yield f"{prefix}.conv{i}", f"{prefix}.bn{i}", getattr(block, f"conv{i}")
            if block.downsample is not None:
                yield f"{prefix}.downsample.0", f"{prefix}.downsample.1", block.downsample


def load(ns, weights, x):
    for conv_name, bn_name, unit in _pairs(ns["model"]):
        unit.kernel.assign(weights[f"{conv_name}.weight"].transpose(2, 3, 1, 0))   # -> (h, w, in, out)
        for neutral_name, attribute in BATCH_NORM:
            getattr(unit, attribute).assign(weights[f"{bn_name}.{neutral_name}"])


def read(ns):
    out = {}
    for conv_name, bn_name, unit in _pairs(ns["model"]):
        out[f"{conv_name}.weight"] = unit.kernel.numpy().transpose(3, 2, 0, 1).copy()
        for neutral_name, attribute in BATCH_NORM:
            out[f"{bn_name}.{neutral_name}"] = getattr(unit, attribute).numpy()
    return out


def forward(ns, x):
    return ns["model"](tf.constant(x.transpose(0, 2, 3, 1))).numpy()   # channels last
