# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # Batch normalisation at inference, in PaddlePaddle

# %% tags=["setup"]
import copy
import os

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import paddle

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("batchnorm_inference")
paddle.seed(hp.seed)
device = paddle.set_device("gpu" if paddle.device.cuda.device_count() else "cpu")   # new tensors go there
images = paddle.to_tensor(random_images.load(hp, layout="NCHW"))
check, *batches = paddle.split(images, len(images) // hp.batch_size)   # the first batch checks, the others are timed
model = paddle.vision.models.resnet50(pretrained=False)  # random weights: nothing is downloaded here
model.fc = paddle.nn.Identity()                          # the benchmark's features: pooled, 2048 per image
# Running statistics as training leaves them: batches through the model in training mode, which updates them
# (BatchNorm2D's _mean and _variance), with or without gradients.
with paddle.no_grad():
    model.train()
    for _ in range(hp.calibration):
        model(paddle.randn_like(check))
model.eval()


# %% tags=["variants"]
def features(net, batch):
    with paddle.no_grad():                               # no recording, in both variants
        return net(batch)


def batch_dependence(net):
    """How far one image's features move when the rest of its batch changes: largest difference / largest feature."""
    alone_with = features(net, check)[0]
    with_others = features(net, paddle.concat([check[:1], batches[0][1:]]))[0]
    return ((alone_with - with_others).abs().max() / alone_with.abs().max()).item()


in_training_mode = copy.deepcopy(model).train()          # a copy: in training mode, every call updates the statistics
dependence = {"inference_mode": batch_dependence(model), "training_mode": batch_dependence(in_training_mode)}
print("largest relative change of one image's features with other batch-mates:", dependence)


def extractor(net):
    def extract():
        for batch in batches:
            features(net, batch)
        if not device.is_cpu_place():
            paddle.device.synchronize()                  # a GPU works asynchronously: wait for it (a CPU place raises)
    return extract


# %% tags=["measure"]
lesson.compare(hp, {"inference_mode": extractor(model), "training_mode": extractor(in_training_mode)},
               facts={name: {"batch_dependence": value} for name, value in dependence.items()})
