# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # Time-major input for a GRU, in MXNet Gluon

# %% tags=["setup"]
import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn, rnn

from rosetta import lesson
from rosetta.data import imdb

hp = lesson.settings("time_major")
mx.random.seed(hp.seed)
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
x_train, y_train, x_test, _ = imdb.load(hp)             # token ids (N, max_length), labels 1 = positive
x_train, y_train = mx.nd.array(x_train, ctx=ctx), mx.nd.array(y_train, ctx=ctx)
x_test = mx.nd.array(x_test[:hp.batch_size], ctx=ctx)


class Classifier(gluon.HybridBlock):
    """The RNN benchmark's model: embedding → GRU (its last output) → dense 2."""

    def __init__(self, layout):
        super().__init__()
        self.time_axis = layout.index("T")
        self.embedding = nn.Embedding(hp.vocabulary_size, hp.embedding_size)
        self.gru = rnn.GRU(hp.hidden_size, layout=layout, input_size=hp.embedding_size)
        self.fc = nn.Dense(2)

    def hybrid_forward(self, F, tokens):                 # tokens: (N, T), as the data comes
        # Time-major: look up the transposed ids, (T, N) → (T, N, embedding); no transpose of the features.
        x = self.embedding(tokens if self.time_axis == 1 else F.transpose(tokens))
        outputs = self.gru(x)                            # (N, T, hidden) or (T, N, hidden)
        last = F.slice_axis(outputs, axis=self.time_axis, begin=-1, end=None)
        return self.fc(F.squeeze(last, axis=self.time_axis))   # logits


def trainer(model):
    model.hybridize(static_alloc=True, static_shape=True)
    optimizer = gluon.Trainer(model.collect_params(), "adam", {"learning_rate": hp.learning_rate})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            with autograd.record():
                loss = loss_fn(model(x_train[rows]), y_train[rows])
            loss.backward()
            optimizer.step(hp.batch_size)
        mx.nd.waitall()                                  # MXNet is asynchronous: wait for the queued work
    return train


# %% tags=["variants"]
batch_major = Classifier("NTC")                          # the GRU benchmark's tab
time_major = Classifier("TNC")                           # rnn.GRU's default layout
for model in (batch_major, time_major):
    model.initialize(mx.init.Xavier(), ctx=ctx)
    model(x_test)                                        # the first call infers the remaining sizes
for mine, theirs in zip(time_major.collect_params().values(), batch_major.collect_params().values()):
    mine.set_data(theirs.data())                         # the same weights in both
max_difference = float((batch_major(x_test) - time_major(x_test)).abs().max().asscalar())
print(f"largest difference between the two layouts' logits: {max_difference:.2e}")

# %% tags=["measure"]
lesson.compare(hp, {"batch_major": trainer(batch_major), "time_major": trainer(time_major)},
               facts={"time_major": {"max_difference": max_difference}})
