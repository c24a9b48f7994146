# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # ResNet-50 v1 against v1.5, in MXNet Gluon
# Gluon's zoo has v1 (`resnet50_v1`); here v1.5 is made from it by moving the strides the other
# way. MXNet has no FLOP counter: the FLOPs are PyTorch's tab's.

# %% tags=["setup"]
import mxnet as mx
from mxnet.gluon import nn
from mxnet.gluon.model_zoo import vision

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("resnet_v1_vs_v15")
mx.random.seed(hp.seed)
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
images = mx.nd.array(random_images.load(hp, layout="NCHW"), ctx=ctx)   # channels first, in MXNet arrays
check, *batches = [images[i:i + hp.batch_size] for i in range(0, images.shape[0], hp.batch_size)]


def resnet50():
    """The benchmark's model: the zoo's resnet50_v1 features, flattened (random weights: nothing is downloaded)."""
    zoo_model = vision.resnet50_v1(pretrained=False, ctx=ctx)
    zoo_model.initialize(mx.init.Xavier(), ctx=ctx)
    model = nn.HybridSequential()
    model.add(zoo_model.features, nn.Flatten())
    return model


def extractor(model):
    """The benchmark's timed loop: every batch through the hybridized model."""
    def extract():
        for batch in batches:
            model(batch)
        mx.nd.waitall()                                  # MXNet is asynchronous: wait for the queued work
    return extract


# %% tags=["variants"]
v1 = resnet50()
v1_5 = resnet50()
# model[0] is the zoo's features block; its [5:8] are stages 2-4, and the first block of each
# downsamples. That block's body is 1×1 conv, BN, ReLU, 3×3 conv, ...: move the stride 2 from
# body[0] to body[3]. Gluon keeps a convolution's stride in its (private) _kwargs, read when the
# graph is built: change it before the first call.
for stage in v1_5[0][5:8]:
    stage[0].body[0]._kwargs["stride"], stage[0].body[3]._kwargs["stride"] = (1, 1), (2, 2)
for model in (v1, v1_5):
    model.hybridize(static_alloc=True, static_shape=True)
    model(check)                                         # the first call infers the input sizes
for mine, theirs in zip(v1_5.collect_params().values(), v1.collect_params().values()):
    mine.set_data(theirs.data())                         # the same weights in both
features_v1, features_v1_5 = v1(check), v1_5(check)
print("same feature shape:", features_v1.shape == features_v1_5.shape,
      f"- largest relative difference between them: "
      f"{((features_v1 - features_v1_5).abs().max() / features_v1_5.abs().max()).asscalar():.2f}")

# %% tags=["measure"]
lesson.compare(hp, {"v1_5": extractor(v1_5), "v1": extractor(v1)})
