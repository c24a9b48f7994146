# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # Fused RNN layers, in MXNet Gluon

# %% tags=["setup"]
import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn, rnn

from rosetta import lesson
from rosetta.data import imdb

hp = lesson.settings("fused_rnn")
mx.random.seed(hp.seed)
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
x_train, y_train, x_test, _ = imdb.load(hp)             # token ids (N, max_length), labels 1 = positive
x_train, y_train = mx.nd.array(x_train, ctx=ctx), mx.nd.array(y_train, ctx=ctx)
x_test = mx.nd.array(x_test[:hp.batch_size], ctx=ctx)


class Classifier(gluon.HybridBlock):
    """The RNN benchmark's model: embedding → GRU (its last output) → dense 2."""

    def __init__(self, recurrent):
        super().__init__()
        self.embedding = nn.Embedding(hp.vocabulary_size, hp.embedding_size)
        self.recurrent = recurrent
        self.fc = nn.Dense(2)

    def hybrid_forward(self, F, tokens):
        return self.fc(self.recurrent(self.embedding(tokens)))   # logits


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
class Stepped(gluon.HybridBlock):                        # a GRUCell unrolled: one small graph per time step
    def __init__(self):
        super().__init__()
        self.cell = rnn.GRUCell(hp.hidden_size, input_size=hp.embedding_size)

    def hybrid_forward(self, F, x):                      # x: (N, T, embedding)
        _, states = self.cell.unroll(hp.max_length, x, layout="NTC", merge_outputs=True)
        return states[0]                                 # the last hidden state


class Fused(gluon.HybridBlock):                          # one RNN operator (oneDNN on a CPU, cuDNN on a GPU)
    def __init__(self):
        super().__init__()
        self.gru = rnn.GRU(hp.hidden_size, layout="NTC", input_size=hp.embedding_size)

    def hybrid_forward(self, F, x):
        outputs = self.gru(x)                            # (N, T, hidden)
        return F.squeeze(F.slice_axis(outputs, axis=1, begin=-1, end=None), axis=1)   # the last step


stepped, fused = Classifier(Stepped()), Classifier(Fused())
for model in (stepped, fused):
    model.initialize(mx.init.Xavier(), ctx=ctx)
    model(x_test)                                        # the first call infers the remaining sizes
# The same weights in both: rnn.GRU's l0_i2h_weight... are GRUCell's i2h_weight... (gates r, z, n).
for mine, theirs in zip(fused.collect_params().values(), stepped.collect_params().values()):
    mine.set_data(theirs.data())
max_difference = float((stepped(x_test) - fused(x_test)).abs().max().asscalar())
print(f"largest difference between the two models' logits: {max_difference:.2e}")

# %% tags=["measure"]
lesson.compare(hp, {"stepped": trainer(stepped), "fused": trainer(fused)},
               facts={"fused": {"max_difference": max_difference}})
