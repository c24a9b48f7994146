"""Plain-script twin of snippets/gru_imdb/mxnet-module.py: the same symbolic GRU classifier, training timed."""
import json
import time

import mxnet as mx
import numpy as np

from rosetta import settings
from rosetta.data import imdb

hp = settings("gru_imdb")
mx.random.seed(hp.seed)
np.random.seed(hp.seed)
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()

x_train, y_train, _, _ = imdb.load(hp)
shuffle = getattr(hp, "shuffle", True)      # a new order every epoch; the equivalence checks turn it off
train_iter = mx.io.NDArrayIter(x_train, y_train, batch_size=hp.batch_size, shuffle=shuffle,
                               last_batch_handle="discard")

tokens = mx.sym.Variable("data")
embedded = mx.sym.Embedding(mx.sym.transpose(tokens), input_dim=hp.vocabulary_size,
                            output_dim=hp.embedding_size, name="embedding")
gru = mx.rnn.FusedRNNCell(hp.hidden_size, mode="gru", prefix="gru_")
outputs, _ = gru.unroll(hp.max_length, embedded, layout="TNC", merge_outputs=True)
net = mx.sym.FullyConnected(mx.sym.SequenceLast(outputs), num_hidden=2, name="fc")
net = mx.sym.SoftmaxOutput(net, name="softmax")

mod = mx.mod.Module(net, context=ctx)
mod.bind(data_shapes=train_iter.provide_data, label_shapes=train_iter.provide_label)
mod.init_params(initializer=mx.init.Uniform(hp.init_scale))
mod.init_optimizer(optimizer="adam", optimizer_params={"learning_rate": hp.learning_rate, "beta1": hp.beta_1,
                                                       "beta2": hp.beta_2, "epsilon": hp.epsilon})

started = time.perf_counter()
for _ in range(hp.epochs):
    train_iter.reset()
    for batch in train_iter:
        mod.forward_backward(batch)
        mod.update()
mx.nd.waitall()                                          # asynchronous engine: wait before stopping the clock
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": hp.epochs * (len(x_train) // hp.batch_size) * hp.batch_size}))
