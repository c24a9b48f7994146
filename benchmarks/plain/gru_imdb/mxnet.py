"""Plain-script twin of snippets/gru_imdb/mxnet.py: the same hybridized Gluon GRU classifier, training timed."""
import json
import time

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon
from mxnet.gluon import nn, rnn

from rosetta import settings
from rosetta.data import imdb

hp = settings("gru_imdb")
mx.random.seed(hp.seed)
rng = np.random.default_rng(hp.seed)
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()

x_train, y_train, _, _ = imdb.load(hp)
x_train, y_train = mx.nd.array(x_train, ctx=ctx), mx.nd.array(y_train, ctx=ctx)


class GRUClassifier(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(hp.vocabulary_size, hp.embedding_size)
        self.gru = rnn.GRU(hp.hidden_size, layout="NTC", input_size=hp.embedding_size)
        self.fc = nn.Dense(2)

    def hybrid_forward(self, F, tokens):
        outputs = self.gru(self.embedding(tokens))
        return self.fc(F.squeeze(F.slice_axis(outputs, axis=1, begin=-1, end=None), axis=1))


model = GRUClassifier()
model.initialize(mx.init.Uniform(hp.init_scale), ctx=ctx)
model.hybridize(static_alloc=True, static_shape=True)
trainer = gluon.Trainer(model.collect_params(), "adam", {"learning_rate": hp.learning_rate, "beta1": hp.beta_1,
                                                         "beta2": hp.beta_2, "epsilon": hp.epsilon})
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

shuffle = getattr(hp, "shuffle", True)      # a new order every epoch; the equivalence checks turn it off
n_batches = x_train.shape[0] // hp.batch_size
started = time.perf_counter()
for _ in range(hp.epochs):
    order = mx.nd.array(rng.permutation(x_train.shape[0]) if shuffle else np.arange(x_train.shape[0]), ctx=ctx)
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        with autograd.record():
            loss = loss_fn(model(x_train.take(rows)), y_train.take(rows))
        loss.backward()
        trainer.step(hp.batch_size)
mx.nd.waitall()                                          # asynchronous engine: wait before stopping the clock
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": hp.epochs * n_batches * hp.batch_size}))
