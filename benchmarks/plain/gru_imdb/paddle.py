"""Plain-script twin of snippets/gru_imdb/paddle.py: the same embedding + GRU classifier, its training loop timed."""
import json
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import numpy as np  # noqa: E402
import paddle  # noqa: E402
from paddle import nn  # noqa: E402

from rosetta import settings  # noqa: E402
from rosetta.data import imdb  # noqa: E402

hp = settings("gru_imdb")
paddle.seed(hp.seed)
rng = np.random.default_rng(hp.seed)
device = paddle.set_device("gpu" if paddle.device.cuda.device_count() else "cpu")
if not device.is_cpu_place():
    paddle.set_flags({"FLAGS_cudnn_exhaustive_search": True})

x_train, y_train, _, _ = imdb.load(hp)
x_train, y_train = paddle.to_tensor(x_train, dtype="int64"), paddle.to_tensor(y_train, dtype="int64")

uniform, zeros = nn.initializer.Uniform(-hp.init_scale, hp.init_scale), nn.initializer.Constant(0.0)
model = nn.Sequential(                      # uniform weights, zero biases (the snippet's init)
    nn.Embedding(hp.vocabulary_size, hp.embedding_size, weight_attr=uniform),
    nn.GRU(hp.embedding_size, hp.hidden_size, weight_ih_attr=uniform, weight_hh_attr=uniform,
           bias_ih_attr=zeros, bias_hh_attr=zeros),
)
fc = nn.Linear(hp.hidden_size, 2, weight_attr=uniform, bias_attr=zeros)
optimizer = paddle.optimizer.Adam(learning_rate=hp.learning_rate, beta1=hp.beta_1, beta2=hp.beta_2,
                                  epsilon=hp.epsilon, parameters=model.parameters() + fc.parameters())
loss_fn = nn.CrossEntropyLoss()

model.train()
shuffle = getattr(hp, "shuffle", True)      # a new order every epoch; the equivalence checks turn it off
n_batches = len(x_train) // hp.batch_size
started = time.perf_counter()
for _ in range(hp.epochs):
    order = paddle.to_tensor(rng.permutation(len(x_train)) if shuffle else np.arange(len(x_train)))
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        _, last_hidden = model(x_train[rows])
        loss = loss_fn(fc(last_hidden[-1]), y_train[rows])
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()
loss.item()                                 # waits for a GPU
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": hp.epochs * n_batches * hp.batch_size}))
