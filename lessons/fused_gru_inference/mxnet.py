# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # A fused GRU's weights at CPU inference, in MXNet Gluon

# %% tags=["setup"]
import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn, rnn

from rosetta import lesson
from rosetta.data import imdb

hp = lesson.settings("fused_gru_inference")
mx.random.seed(hp.seed)
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()   # training: on the GPU where there is one
x_train, y_train, x_test, _ = imdb.load(hp)             # token ids (N, max_length), labels 1 = positive
x_train, y_train = mx.nd.array(x_train, ctx=ctx), mx.nd.array(y_train, ctx=ctx)
x_test = mx.nd.array(x_test)                             # inference on the CPU


class Classifier(gluon.HybridBlock):
    """The RNN benchmark's model: embedding → GRU → its last output → dense 2."""

    def __init__(self, recurrent):
        super().__init__()
        self.embedding = nn.Embedding(hp.vocabulary_size, hp.embedding_size)
        self.recurrent = recurrent
        self.fc = nn.Dense(2)

    def hybrid_forward(self, F, tokens):
        return self.fc(self.recurrent(self.embedding(tokens)))   # logits


class Fused(gluon.HybridBlock):                          # one RNN operator (cuDNN on a GPU, oneDNN on a CPU)
    def __init__(self):
        super().__init__()
        self.gru = rnn.GRU(hp.hidden_size, layout="NTC", input_size=hp.embedding_size)

    def hybrid_forward(self, F, x):
        return F.squeeze(F.slice_axis(self.gru(x), axis=1, begin=-1, end=None), axis=1)   # the last step


model = Classifier(Fused())
model.initialize(mx.init.Xavier(), ctx=ctx)
model.hybridize(static_alloc=True, static_shape=True)
optimizer = gluon.Trainer(model.collect_params(), "adam", {"learning_rate": hp.learning_rate})
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
for i in range(hp.batches):
    rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
    with autograd.record():
        loss = loss_fn(model(x_train[rows]), y_train[rows])
    loss.backward()
    optimizer.step(hp.batch_size)
model.collect_params().reset_ctx(mx.cpu())               # the trained weights onto the CPU


# %% tags=["variants"]
class Stepped(gluon.HybridBlock):                        # a GRUCell unrolled: what runs without the fused operator
    def __init__(self):
        super().__init__()
        self.cell = rnn.GRUCell(hp.hidden_size, input_size=hp.embedding_size)

    def hybrid_forward(self, F, x):
        _, states = self.cell.unroll(hp.max_length, x, layout="NTC", merge_outputs=True)
        return states[0]                                 # the last hidden state


stepped = Classifier(Stepped())
stepped.initialize(ctx=mx.cpu())
stepped(x_test[:hp.batch_size])                          # the first call infers the remaining sizes
# rnn.GRU's l0_i2h_weight... are GRUCell's i2h_weight... (gates r, z, n): the same order, other names.
for mine, trained in zip(stepped.collect_params().values(), model.collect_params().values()):
    mine.set_data(trained.data(mx.cpu()))
stepped.hybridize(static_alloc=True, static_shape=True)


def predict(net):
    def call():
        for start in range(0, len(x_test), hp.batch_size):
            net(x_test[start:start + hp.batch_size])
        mx.nd.waitall()                                  # MXNet is asynchronous: wait for the queued work
    return call


max_difference = float((model(x_test) - stepped(x_test)).abs().max().asscalar())
print(f"largest difference between the fused layer's and the cell's logits: {max_difference:.2e}")

# %% tags=["measure"]
lesson.compare(hp, {"fused": predict(model), "cell": predict(stepped)},
               facts={"cell": {"max_difference": max_difference}})
