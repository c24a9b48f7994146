"""Neutral ResNet-50 weights <-> the Gluon snippet's model_zoo resnet50_v1.

features[0:2] are conv1 and bn1, features[4:8] the four stages of BottleneckV1 blocks: a body
of (conv, bn, relu) x 3 and a downsample (conv, bn) in each stage's first block. The body's
1x1 convolutions have a bias (set to 0).
"""
import mxnet as mx


def _pairs(ns):
    """(neutral conv name, neutral bn name, Gluon conv, Gluon batch norm), in network order."""
    features = ns["zoo_model"].features
    yield "conv1", "bn1", features[0], features[1]
    for stage_index, stage in enumerate(features[4:8], 1):
        for block_index, block in enumerate(stage):
            prefix = f"layer{stage_index}.{block_index}"
            for i, position in ((1, 0), (2, 3), (3, 6)):
                yield f"{prefix}.conv{i}", f"{prefix}.bn{i}", block.body[position], block.body[position + 1]
            if block.downsample is not None:
                yield f"{prefix}.downsample.0", f"{prefix}.downsample.1", block.downsample[0], block.downsample[1]


def load(ns, weights, x):
    for conv_name, bn_name, conv, bn in _pairs(ns):
        conv.weight.set_data(mx.nd.array(weights[f"{conv_name}.weight"]))
        if conv.bias is not None:
            conv.bias.set_data(mx.nd.zeros(conv.bias.shape))
        for gluon_name, neutral_name in (("gamma", "weight"), ("beta", "bias"),
                                         ("running_mean", "running_mean"), ("running_var", "running_var")):
            getattr(bn, gluon_name).set_data(mx.nd.array(weights[f"{bn_name}.{neutral_name}"]))


def read(ns):
    out = {}
    for conv_name, bn_name, conv, bn in _pairs(ns):
        out[f"{conv_name}.weight"] = conv.weight.data().asnumpy()
        for gluon_name, neutral_name in (("gamma", "weight"), ("beta", "bias"),
                                         ("running_mean", "running_mean"), ("running_var", "running_var")):
            out[f"{bn_name}.{neutral_name}"] = getattr(bn, gluon_name).data().asnumpy()
    return out


def forward(ns, x):
    return ns["model"](mx.nd.array(x, ctx=ns["ctx"])).asnumpy()   # outside record(): inference mode
