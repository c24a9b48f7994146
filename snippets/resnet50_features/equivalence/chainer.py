"""Neutral ResNet-50 weights <-> the Chainer snippet's ResNet50Layers (converted from Caffe).

Stages are res2..res5 (neutral layer1..layer4); each stage's first block `a` (BottleneckA) has
the projection shortcut as conv4/bn4, the others are b1, b2, ... Batch norm keeps gamma, beta
and the running statistics avg_mean, avg_var. conv1 has a bias (set to 0).
"""
import chainer


def _pairs(model):
    yield "conv1", "bn1", model.conv1, model.bn1
    for stage_index, stage_name in enumerate(("res2", "res3", "res4", "res5"), 1):
        stage = getattr(model, stage_name)
        blocks = ["a"] + sorted((name for name in stage._children if name.startswith("b")), key=lambda n: int(n[1:]))
        for block_index, block_name in enumerate(blocks):
            block = getattr(stage, block_name)
            prefix = f"layer{stage_index}.{block_index}"
            for i in (1, 2, 3):
                yield f"{prefix}.conv{i}", f"{prefix}.bn{i}", getattr(block, f"conv{i}"), getattr(block, f"bn{i}")
            if block_name == "a":
                yield f"{prefix}.downsample.0", f"{prefix}.downsample.1", block.conv4, block.bn4


def _cpu(array):
    return chainer.backend.CpuDevice().send(array)


def load(ns, weights, x):
    device = ns["device"]
    for conv_name, bn_name, conv, bn in _pairs(ns["model"]):
        conv.W.array[...] = device.send(weights[f"{conv_name}.weight"])
        if conv.b is not None:
            conv.b.array[...] = 0
        bn.gamma.array[...] = device.send(weights[f"{bn_name}.weight"])
        bn.beta.array[...] = device.send(weights[f"{bn_name}.bias"])
        bn.avg_mean[...] = device.send(weights[f"{bn_name}.running_mean"])
        bn.avg_var[...] = device.send(weights[f"{bn_name}.running_var"])


def read(ns):
    out = {}
    for conv_name, bn_name, conv, bn in _pairs(ns["model"]):
        out[f"{conv_name}.weight"] = _cpu(conv.W.array).copy()
        out[f"{bn_name}.weight"] = _cpu(bn.gamma.array).copy()
        out[f"{bn_name}.bias"] = _cpu(bn.beta.array).copy()
        out[f"{bn_name}.running_mean"] = _cpu(bn.avg_mean).copy()
        out[f"{bn_name}.running_var"] = _cpu(bn.avg_var).copy()
    return out


def forward(ns, x):
    return _cpu(ns["extract"](ns["device"].send(x)))      # the snippet's own function: train=False
