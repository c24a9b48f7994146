# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # ResNet-50 features, as written and tuned, in PaddlePaddle
# Paddle's guides give two steps: `paddle.jit.to_static`, the dynamic graph turned into a static program, and
# Paddle Inference, its deployment engine, whose passes fold and fuse a saved program into oneDNN's kernels.
# (The dynamic graph's `FLAGS_use_mkldnn` switch changes none of its kernels in Paddle 3.3.)

# %% tags=["setup"]
import copy
import os
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import paddle

from rosetta import lesson
from rosetta.data import random_images

hp = lesson.settings("tuned_resnet")
paddle.seed(hp.seed)
device = paddle.set_device("gpu" if paddle.device.cuda.device_count() else "cpu")   # new tensors go there
on_cpu = device.is_cpu_place()
if not on_cpu:
    paddle.set_flags({"FLAGS_cudnn_exhaustive_search": True})   # as the snippet: on a GPU, cuDNN picks its kernels
images = paddle.to_tensor(random_images.load(hp, layout="NCHW"))
check, *batches = paddle.split(images, len(images) // hp.batch_size)   # the first batch checks, the rest are timed
model = paddle.vision.models.resnet50(pretrained=False)  # random weights: nothing is downloaded here
model.fc = paddle.nn.Identity()                          # the benchmark's features: pooled, 2048 per image
model.eval()                                             # eval(): batch-norm uses its running statistics


def extractor(forward):
    """The snippet's timed loop: every batch through the model, no autograd bookkeeping."""
    def extract():
        with paddle.no_grad():
            for batch in batches:
                forward(batch)
        if not on_cpu:
            paddle.device.synchronize()                  # the GPU works asynchronously: wait for it
    return extract


# %% tags=["variants"]
forwards = {"as_written": model}                         # the snippet's model, its dynamic graph

# paddle.jit.to_static: the forward pass traced into a static program (full_graph=True: the whole of it,
# from its source code), which Paddle's executor runs. The tracing happens in the first call.
# (to_static converts the layer it is given: a copy, with the same weights.)
forwards["compiled"] = paddle.jit.to_static(copy.deepcopy(model), full_graph=True)

# Paddle Inference: the program saved (paddle.jit.save: weights and graph, in files) and loaded by a
# predictor, whose passes fold batch-norm into the convolutions and fuse convolution + ReLU (+ the
# residual sum) into oneDNN kernels: the frozen, fused graph. A CPU only here (on a GPU its config differs).
if on_cpu:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "resnet50")
        paddle.jit.save(model, path, input_spec=[paddle.static.InputSpec([None, *check.shape[1:]], "float32")])
        config = paddle.inference.Config(path + ".json", path + ".pdiparams")
        config.enable_mkldnn()
        config.set_cpu_math_library_num_threads(int(os.environ["OMP_NUM_THREADS"]))   # the predictor's default: 1
        config.disable_glog_info()                       # (its passes log a line each)
        predictor = paddle.inference.create_predictor(config)   # the passes run here; the files are read in
    forwards["fused"] = lambda batch: predictor.run([batch])[0]

# %% tags=["measure"]
facts, reference = {}, None
with paddle.no_grad():
    for name, forward in forwards.items():             # the first call (tracing included), timed once
        started = time.perf_counter()
        features = forward(check).numpy()                # .numpy(): waits for the result
        facts[name] = {"first_call_seconds": time.perf_counter() - started}
        reference = features if reference is None else reference
        facts[name]["relative_difference"] = float(abs(features - reference).max() / abs(reference).max())
lesson.compare(hp, {name: extractor(forward) for name, forward in forwards.items()}, facts=facts)
