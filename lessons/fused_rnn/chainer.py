# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # Fused RNN layers, in Chainer

# %% tags=["setup"]
import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np

from rosetta import lesson
from rosetta.data import imdb

hp = lesson.settings("fused_rnn")
np.random.seed(hp.seed)                                  # Chainer's initialisers draw from numpy
try:
    import cupy  # noqa: F401  (arrays on the GPU through CuPy)
    device = chainer.get_device("@cupy:0")
except ImportError:
    device = chainer.get_device("@numpy")
x_train, y_train, _, _ = imdb.load(hp)                  # token ids (N, max_length), labels 1 = positive
x_train, y_train = device.send(x_train), device.send(y_train)


class Classifier(chainer.Chain):
    """The RNN benchmark's model: embedding → GRU (its last hidden state) → dense 2."""

    def __init__(self, recurrent):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(hp.vocabulary_size, hp.embedding_size)
            self.recurrent = recurrent
            self.fc = L.Linear(hp.hidden_size, 2)

    def forward(self, tokens):
        return self.fc(self.recurrent(self.embed(tokens)))   # logits


def trainer(model):
    model.to_device(device)
    optimizer = chainer.optimizers.Adam(alpha=hp.learning_rate)
    optimizer.setup(model)

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            loss = F.softmax_cross_entropy(model(x_train[rows]), y_train[rows])
            model.cleargrads()
            loss.backward()
            optimizer.update()
        float(loss.array)                                # waits for the GPU, if there is one
    return train


# %% tags=["variants"]
# L.GRU is the step-wise link, but another GRU than NStepGRU's: its reset gate acts before the
# recurrent product (Cho et al.), so the two cannot be given the same weights.
class Stepped(chainer.Chain):                            # one L.GRU call per time step, from Python
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.gru = L.GRU(hp.embedding_size, hp.hidden_size)

    def forward(self, x):                                # x: (N, T, embedding)
        self.gru.reset_state()                           # L.GRU keeps its hidden state between calls
        for t in range(x.shape[1]):
            h = self.gru(x[:, t])
        return h


class Fused(chainer.Chain):                              # the whole sequence in one call (cuDNN on a GPU)
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.gru = L.NStepGRU(1, hp.embedding_size, hp.hidden_size, dropout=0.0)

    def forward(self, x):
        last_hidden, _ = self.gru(None, F.separate(x, axis=0))   # a list of N (T, embedding) sequences
        return last_hidden[-1]


# %% tags=["measure"]
lesson.compare(hp, {"stepped": trainer(Classifier(Stepped())), "fused": trainer(Classifier(Fused()))})
