"""Plain-script twin of snippets/resnet50_features/paddle.py: ResNet-50 features, timed after one warm-up batch."""
import json
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import paddle  # noqa: E402

from rosetta import settings  # noqa: E402
from rosetta.data import random_images  # noqa: E402

hp = settings("resnet50_features")
paddle.seed(hp.seed)
device = paddle.set_device("gpu" if paddle.device.cuda.device_count() else "cpu")
if not device.is_cpu_place():
    paddle.set_flags({"FLAGS_cudnn_exhaustive_search": True})



def synchronize():
    if not device.is_cpu_place():                        # (paddle.device.synchronize() raises on a CPU)
        paddle.device.synchronize()


images = paddle.to_tensor(random_images.load(hp, layout="NCHW"))
warm_up, *timed = paddle.split(images, len(images) // hp.batch_size)

model = paddle.vision.models.resnet50(pretrained=hp.weights == "pretrained")
model.fc = paddle.nn.Identity()
model.eval()

with paddle.no_grad():
    model(warm_up)
    synchronize()                                        # the warm-up must not run into the timed part
    started = time.perf_counter()
    features = paddle.concat([model(batch) for batch in timed])
    synchronize()
    seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": features.shape[0]}))
