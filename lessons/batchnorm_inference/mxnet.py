# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # Batch normalisation at inference, in MXNet Gluon

# %% tags=["setup"]
import mxnet as mx
from mxnet import autograd
from mxnet.gluon import nn
from mxnet.gluon.model_zoo import vision

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("batchnorm_inference")
mx.random.seed(hp.seed)
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
images = mx.nd.array(random_images.load(hp, layout="NCHW"), ctx=ctx)
check, *batches = [images[i:i + hp.batch_size] for i in range(0, images.shape[0], hp.batch_size)]
zoo_model = vision.resnet50_v1(pretrained=False, ctx=ctx)   # random weights: nothing is downloaded here
zoo_model.initialize(mx.init.Xavier(), ctx=ctx)
model = nn.HybridSequential()
model.add(zoo_model.features, nn.Flatten())              # the benchmark's features: pooled, 2048 per image
# Running statistics as training leaves them: batches through the model in training mode, which updates them.
for _ in range(hp.calibration):
    with autograd.train_mode():
        model(mx.nd.random.normal(shape=check.shape, ctx=ctx))
mx.nd.waitall()


# %% tags=["variants"]
def features(batch, training):
    # Gluon's mode is a context, not a property of the model: autograd.train_mode() turns batch-norm's
    # batch statistics on (and updates the running ones); outside it, predict mode.
    if training:
        with autograd.train_mode():
            return model(batch)
    return model(batch)


def batch_dependence(training):
    """How far one image's features move when the rest of its batch changes: largest difference / largest feature."""
    alone_with = features(check, training)[0]
    with_others = features(mx.nd.concat(check[:1], batches[0][1:], dim=0), training)[0]
    return float((alone_with - with_others).abs().max().asscalar() / alone_with.abs().max().asscalar())


# (Measured in inference mode first: every call in training mode moves the running statistics a little.)
dependence = {"inference_mode": batch_dependence(False), "training_mode": batch_dependence(True)}
print("largest relative change of one image's features with other batch-mates:", dependence)


def extractor(training):
    def extract():
        for batch in batches:
            features(batch, training)
        mx.nd.waitall()                                  # MXNet is asynchronous: wait for the queued work
    return extract


# %% tags=["measure"]
lesson.compare(hp, {"inference_mode": extractor(False), "training_mode": extractor(True)},
               facts={name: {"batch_dependence": value} for name, value in dependence.items()})
