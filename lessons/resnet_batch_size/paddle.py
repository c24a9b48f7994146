# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # ResNet-50 throughput against batch size, in PaddlePaddle

# %% tags=["setup"]
import os

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import paddle

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("resnet_batch_size")
paddle.seed(hp.seed)
device = paddle.set_device("gpu" if paddle.device.cuda.device_count() else "cpu")   # new tensors go there
if not device.is_cpu_place():
    paddle.set_flags({"FLAGS_cudnn_exhaustive_search": True})   # as the snippet: on a GPU, cuDNN picks its kernels
images = paddle.to_tensor(random_images.load(hp, layout="NCHW"))
model = paddle.vision.models.resnet50(pretrained=False)  # random weights: nothing is downloaded here
model.fc = paddle.nn.Identity()                          # the benchmark's features: pooled, 2048 per image
model.eval()                                             # eval(): batch-norm uses its running statistics


# %% tags=["variants"]
def extractor(batch_size):
    """All the images through the model, `batch_size` at a time, as the benchmark's loop."""
    batches = paddle.split(images, len(images) // batch_size)   # paddle.split takes a number of equal parts

    def extract():
        if not device.is_cpu_place():
            paddle.device.cuda.reset_max_memory_allocated()
        with paddle.no_grad():
            for batch in batches:
                model(batch)
        if not device.is_cpu_place():
            paddle.device.synchronize()                  # the GPU works asynchronously: wait for it
            return {"gpu_peak_memory_mb": paddle.device.cuda.max_memory_allocated() / 2**20}
    return extract


variants = {f"batch_{size}": extractor(size) for size in hp.batch_sizes}

# %% tags=["measure"]
# memory=True: each call's extra peak resident memory, next to its time.
lesson.compare(hp, variants, memory=True, per_second={"images": {name: len(images) for name in variants}})
