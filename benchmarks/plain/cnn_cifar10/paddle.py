"""Plain-script twin of snippets/cnn_cifar10/paddle.py: the same VGG-style CNN, its training loop timed."""
import json
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import numpy as np  # noqa: E402
import paddle  # noqa: E402
from paddle import nn  # noqa: E402

from rosetta import settings  # noqa: E402
from rosetta.data import cifar10  # noqa: E402

hp = settings("cnn_cifar10")
paddle.seed(hp.seed)
rng = np.random.default_rng(hp.seed)
device = paddle.set_device("gpu" if paddle.device.cuda.device_count() else "cpu")
if not device.is_cpu_place():
    paddle.set_flags({"FLAGS_cudnn_exhaustive_search": True})

x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = paddle.to_tensor(x_train), paddle.to_tensor(y_train, dtype="int64")

glorot = {"weight_attr": nn.initializer.XavierUniform(), "bias_attr": nn.initializer.Constant(0.0)}
model = nn.Sequential(
    nn.Conv2D(3, 50, 3, padding=1, **glorot), nn.ReLU(),
    nn.Conv2D(50, 50, 3, padding=1, **glorot), nn.MaxPool2D(2), nn.ReLU(), nn.Dropout(hp.dropout_conv),
    nn.Conv2D(50, 100, 3, padding=1, **glorot), nn.ReLU(),
    nn.Conv2D(100, 100, 3, padding=1, **glorot), nn.MaxPool2D(2), nn.ReLU(), nn.Dropout(hp.dropout_conv),
    nn.Flatten(), nn.Linear(100 * 8 * 8, 512, **glorot), nn.ReLU(), nn.Dropout(hp.dropout_dense),
    nn.Linear(512, 10, **glorot),
)
optimizer = paddle.optimizer.Momentum(learning_rate=hp.learning_rate, momentum=hp.momentum,
                                      parameters=model.parameters())
loss_fn = nn.CrossEntropyLoss()

model.train()
shuffle = getattr(hp, "shuffle", True)      # a new order every epoch; the equivalence checks turn it off
n_batches = len(x_train) // hp.batch_size
started = time.perf_counter()
for _ in range(hp.epochs):
    order = paddle.to_tensor(rng.permutation(len(x_train)) if shuffle else np.arange(len(x_train)))
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        loss = loss_fn(model(x_train[rows]), y_train[rows])
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()
loss.item()                                 # waits for a GPU
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": hp.epochs * n_batches * hp.batch_size}))
