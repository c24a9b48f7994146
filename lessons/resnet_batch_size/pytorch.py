# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # ResNet-50 throughput against batch size, in PyTorch

# %% tags=["setup"]
import torch
import torchvision

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("resnet_batch_size")
torch.manual_seed(hp.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.backends.cudnn.benchmark = True                    # as in the benchmark: on a GPU, cuDNN picks its kernels
images = torch.from_numpy(random_images.load(hp, layout="NCHW")).to(device)
model = torchvision.models.resnet50(weights=None)        # random weights: nothing is downloaded here
model.fc = torch.nn.Identity()                           # the benchmark's features: pooled, 2048 per image
model = model.to(device).eval()                          # eval(): batch-norm uses its running statistics


# %% tags=["variants"]
def extractor(batch_size):
    """All the images through the model, `batch_size` at a time, as the benchmark's loop."""
    batches = images.split(batch_size)

    def extract():
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats()
        with torch.inference_mode():
            for batch in batches:
                model(batch)
        if device.type == "cuda":
            torch.cuda.synchronize()                     # the GPU works asynchronously: wait for it
            return {"gpu_peak_memory_mb": torch.cuda.max_memory_allocated() / 2**20}
    return extract


variants = {f"batch_{size}": extractor(size) for size in hp.batch_sizes}

# %% tags=["measure"]
# memory=True: each call's extra peak resident memory, next to its time.
lesson.compare(hp, variants, memory=True, per_second={"images": {name: len(images) for name in variants}})
