"""Plain-script twin of snippets/gru_imdb/chainer.py: the same EmbedID + NStepGRU classifier, training timed."""
import json
import time

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np

from rosetta import settings
from rosetta.data import imdb

hp = settings("gru_imdb")
rng = np.random.default_rng(hp.seed)
np.random.seed(hp.seed)                                  # Chainer's initialisers draw from numpy
try:
    import cupy as xp
    device = chainer.get_device("@cupy:0")
except ImportError:
    xp, device = np, chainer.get_device("@numpy")

x_train, y_train, _, _ = imdb.load(hp)
x_train, y_train = device.send(x_train), device.send(y_train)


class GRUClassifier(chainer.Chain):
    def __init__(self):
        super().__init__()
        uniform = chainer.initializers.Uniform(hp.init_scale)
        with self.init_scope():
            self.embed = L.EmbedID(hp.vocabulary_size, hp.embedding_size, initialW=uniform)
            self.gru = L.NStepGRU(1, hp.embedding_size, hp.hidden_size, dropout=0.0, initialW=uniform)
            self.fc = L.Linear(hp.hidden_size, 2, initialW=uniform)

    def forward(self, tokens):
        last_hidden, _ = self.gru(None, F.separate(self.embed(tokens), axis=0))
        return self.fc(last_hidden[-1])


model = GRUClassifier()
model.to_device(device)
optimizer = chainer.optimizers.Adam(alpha=hp.learning_rate, beta1=hp.beta_1, beta2=hp.beta_2, eps=hp.epsilon)
optimizer.setup(model)

shuffle = getattr(hp, "shuffle", True)      # a new order every epoch; the equivalence checks turn it off
n_batches = len(x_train) // hp.batch_size
started = time.perf_counter()
for _ in range(hp.epochs):
    order = device.send(rng.permutation(len(x_train)) if shuffle else np.arange(len(x_train)))
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        loss = F.softmax_cross_entropy(model(x_train[rows]), y_train[rows])
        model.cleargrads()
        loss.backward()
        optimizer.update()
if xp is not np:
    device.device.synchronize()
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": hp.epochs * n_batches * hp.batch_size}))
