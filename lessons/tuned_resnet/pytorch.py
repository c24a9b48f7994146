# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # ResNet-50 features, as written and tuned, in PyTorch

# %% tags=["setup"]
import copy
import time

import torch
import torchvision

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("tuned_resnet")
torch.manual_seed(hp.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.backends.cudnn.benchmark = True                    # as in the snippet: on a GPU, cuDNN picks its kernels
images = torch.from_numpy(random_images.load(hp, layout="NCHW")).to(device)
check, *batches = images.split(hp.batch_size)           # the first batch checks the variants, the rest are timed
model = torchvision.models.resnet50(weights=None)        # random weights: nothing is downloaded here
model.fc = torch.nn.Identity()                           # the benchmark's features: pooled, 2048 per image
model = model.to(device).eval()                          # eval(): batch-norm uses its running statistics


def extractor(forward):
    """The snippet's timed loop: every batch through the model, no autograd bookkeeping."""
    def extract():
        with torch.inference_mode():
            for batch in batches:
                forward(batch)
        if device.type == "cuda":
            torch.cuda.synchronize()                     # the GPU works asynchronously: wait for it
    return extract


# %% tags=["variants"]
forwards = {"as_written": model}

# Channels-last: weights and images stored NHWC, the layout oneDNN's CPU convolutions (and
# cuDNN's tensor-core kernels) work in.
channels_last_model = copy.deepcopy(model).to(memory_format=torch.channels_last)
forwards["channels_last"] = lambda batch: channels_last_model(batch.contiguous(memory_format=torch.channels_last))

# Frozen TorchScript: the whole forward as one graph with the weights as constants, so batch-norm
# folds into the convolution before it and, on a CPU, oneDNN fuses convolution + ReLU.
# (TorchScript is deprecated in this PyTorch, in favour of torch.compile: it warns, and works.)
forwards["fused"] = torch.jit.freeze(torch.jit.script(model))

# torch.compile: Inductor generates the forward pass (C++ around oneDNN's convolutions on a CPU,
# Triton on a GPU); the compilation happens in the first call. Left out of the cpu profile (see lesson.toml).
if hp.torch_compile_backend:
    forwards["compiled"] = torch.compile(model, backend=hp.torch_compile_backend)

# %% tags=["measure"]
facts, reference = {}, None
with torch.inference_mode():
    for name, forward in forwards.items():              # the first call (compilation included), timed once
        started = time.perf_counter()
        features = forward(check)
        facts[name] = {"first_call_seconds": time.perf_counter() - started}
        reference = features if reference is None else reference
        facts[name]["relative_difference"] = ((features - reference).abs().max() / reference.abs().max()).item()
lesson.compare(hp, {name: extractor(forward) for name, forward in forwards.items()}, facts=facts)
