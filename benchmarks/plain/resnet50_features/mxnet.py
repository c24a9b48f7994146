"""Plain-script twin of snippets/resnet50_features/mxnet.py: resnet50_v1 features, timed after one warm-up batch."""
import json
import time

import mxnet as mx
from mxnet.gluon import nn
from mxnet.gluon.model_zoo import vision

from rosetta import settings
from rosetta.data import random_images

hp = settings("resnet50_features")
mx.random.seed(hp.seed)
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()

images = mx.nd.array(random_images.load(hp, layout="NCHW"), ctx=ctx)
batches = [images[i:i + hp.batch_size] for i in range(0, images.shape[0], hp.batch_size)]

zoo_model = vision.resnet50_v1(pretrained=hp.weights == "pretrained", ctx=ctx)
if hp.weights != "pretrained":
    zoo_model.initialize(mx.init.Xavier(), ctx=ctx)
model = nn.HybridSequential()
model.add(zoo_model.features, nn.Flatten())
model.hybridize(static_alloc=True, static_shape=True)

model(batches[0])
mx.nd.waitall()                                          # asynchronous engine: the warm-up must finish first
started = time.perf_counter()
features = mx.nd.concat(*[model(batch) for batch in batches[1:]], dim=0)
mx.nd.waitall()
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": features.shape[0]}))
