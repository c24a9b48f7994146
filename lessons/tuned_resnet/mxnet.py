# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # ResNet-50 features, as written and tuned, in MXNet Gluon
# The benchmark's snippet already hybridizes with `static_alloc=True, static_shape=True`: the
# `imperative` variant takes that away, and `fused` adds MXNet's oneDNN (MKL-DNN) subgraph
# backend on top of it.

# %% tags=["setup"]
import time

import mxnet as mx
from mxnet.gluon import nn
from mxnet.gluon.model_zoo import vision

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("tuned_resnet")
mx.random.seed(hp.seed)
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
images = mx.nd.array(random_images.load(hp, layout="NCHW"), ctx=ctx)   # channels first, in MXNet arrays
check, *batches = [images[i:i + hp.batch_size] for i in range(0, images.shape[0], hp.batch_size)]


def resnet50():
    """The snippet's model: the zoo's resnet50_v1 features, flattened (random weights: nothing is downloaded)."""
    zoo_model = vision.resnet50_v1(pretrained=False, ctx=ctx)
    zoo_model.initialize(mx.init.Xavier(), ctx=ctx)
    model = nn.HybridSequential()
    model.add(zoo_model.features, nn.Flatten())
    model(check)                                         # the first call infers the input sizes
    return model


def extractor(forward):
    """The snippet's timed loop: every batch through the model (outside autograd: inference mode)."""
    def extract():
        for batch in batches:
            forward(batch)
        mx.nd.waitall()                                  # MXNet is asynchronous: wait for the queued work
    return extract


# The oneDNN backend is for CPUs: on a GPU there is no `fused` variant.
names = ("as_written", "imperative", "fused") if ctx == mx.cpu() else ("as_written", "imperative")
models = {name: resnet50() for name in names}
for model in list(models.values())[1:]:                  # the same weights in all three
    for mine, theirs in zip(model.collect_params().values(), models["as_written"].collect_params().values()):
        mine.set_data(theirs.data())

# %% tags=["variants"]
# As written: one cached graph, its memory allocated once for the fixed batch shape.
models["as_written"].hybridize(static_alloc=True, static_shape=True)

# Imperative: no hybridize(); every layer is a Python call that queues its own operators.

# Fused: the graph handed to the oneDNN subgraph backend, which folds batch-norm into the
# convolutions and fuses convolution + ReLU (+ the residual sum) for inference.
if "fused" in models:
    models["fused"].optimize_for(check, backend="MKLDNN", static_alloc=True, static_shape=True)

# %% tags=["measure"]
facts, reference = {}, None
for name, model in models.items():                       # the first call (graph building included), timed once
    started = time.perf_counter()
    features = model(check).asnumpy()
    facts[name] = {"first_call_seconds": time.perf_counter() - started}
    reference = features if reference is None else reference
    facts[name]["relative_difference"] = float(abs(features - reference).max() / abs(reference).max())
lesson.compare(hp, {name: extractor(model) for name, model in models.items()}, facts=facts)
