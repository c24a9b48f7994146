"""Plain-script twin of snippets/resnet50_features/pytorch.py: ResNet-50 features, timed after one warm-up batch."""
import json
import time

import torch
import torchvision

from rosetta import settings
from rosetta.data import random_images

hp = settings("resnet50_features")
torch.manual_seed(hp.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.backends.cudnn.benchmark = True


def synchronize():
    if device.type == "cuda":
        torch.cuda.synchronize()


images = torch.from_numpy(random_images.load(hp, layout="NCHW")).to(device)
warm_up, *timed = images.split(hp.batch_size)

weights = torchvision.models.ResNet50_Weights.IMAGENET1K_V1 if hp.weights == "pretrained" else None
model = torchvision.models.resnet50(weights=weights)
model.fc = torch.nn.Identity()
model = model.to(device).eval()

with torch.inference_mode():
    model(warm_up)
    synchronize()                                        # the warm-up must not run into the timed part
    started = time.perf_counter()
    features = torch.cat([model(batch) for batch in timed])
    synchronize()
    seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": features.shape[0]}))
