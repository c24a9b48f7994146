# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # ResNet-50 throughput against batch size, in MXNet Gluon

# %% tags=["setup"]
import mxnet as mx
from mxnet.gluon import nn
from mxnet.gluon.model_zoo import vision

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("resnet_batch_size")
mx.random.seed(hp.seed)
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
images = mx.nd.array(random_images.load(hp, layout="NCHW"), ctx=ctx)   # channels first, in MXNet arrays
zoo_model = vision.resnet50_v1(pretrained=False, ctx=ctx)               # random weights: nothing is downloaded
zoo_model.initialize(mx.init.Xavier(), ctx=ctx)
model = nn.HybridSequential()
model.add(zoo_model.features, nn.Flatten())              # the benchmark's features: pooled, 2048 per image
# As in the benchmark: one cached graph. static_shape compiles it for one batch shape, so a new batch
# size builds (and allocates) a graph of its own, in that variant's warm-up call.
model.hybridize(static_alloc=True, static_shape=True)


# %% tags=["variants"]
def extractor(batch_size):
    """All the images through the model, `batch_size` at a time, as the benchmark's loop."""
    batches = [images[i:i + batch_size] for i in range(0, images.shape[0], batch_size)]

    def extract():
        for batch in batches:
            model(batch)                                 # outside autograd.record(): inference
        mx.nd.waitall()                                  # MXNet is asynchronous: wait for the queued work
    return extract


variants = {f"batch_{size}": extractor(size) for size in hp.batch_sizes}

# %% tags=["measure"]
# memory=True: each call's extra peak resident memory, next to its time.
lesson.compare(hp, variants, memory=True, per_second={"images": {name: images.shape[0] for name in variants}})
