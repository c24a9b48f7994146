# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # Fused RNN layers, in PaddlePaddle

# %% tags=["setup"]
import os

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

from rosetta import lesson
from rosetta.data import imdb

hp = lesson.settings("fused_rnn")
paddle.seed(hp.seed)
device = paddle.set_device("gpu" if paddle.device.cuda.device_count() else "cpu")   # new tensors go there
x_train, y_train, x_test, _ = imdb.load(hp)             # token ids (N, max_length), labels 1 = positive
x_train, y_train = paddle.to_tensor(x_train, dtype="int64"), paddle.to_tensor(y_train, dtype="int64")
x_test = paddle.to_tensor(x_test[:hp.batch_size], dtype="int64")


class Classifier(nn.Layer):
    """The RNN benchmark's model: embedding → GRU (its last hidden state) → dense 2."""

    def __init__(self, recurrent):
        super().__init__()
        self.embedding = nn.Embedding(hp.vocabulary_size, hp.embedding_size)
        self.recurrent = recurrent
        self.fc = nn.Linear(hp.hidden_size, 2)

    def forward(self, tokens):
        return self.fc(self.recurrent(self.embedding(tokens)))   # logits


def trainer(model):
    optimizer = paddle.optimizer.Adam(learning_rate=hp.learning_rate, parameters=model.parameters())

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            loss = F.cross_entropy(model(x_train[rows]), y_train[rows])
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
        loss.item()                                      # waits for the GPU, if there is one
    return train


# %% tags=["variants"]
class Stepped(nn.Layer):                                 # one GRUCell call per time step, from Python
    def __init__(self):
        super().__init__()
        # nn.RNN is Paddle's loop over a cell's time steps, in Python (what nn.GRU itself falls back to
        # where it cannot use its operator).
        self.rnn = nn.RNN(nn.GRUCell(hp.embedding_size, hp.hidden_size))   # batch first: Paddle's default

    def forward(self, x):                                # x: (N, T, embedding)
        _, last_hidden = self.rnn(x)                     # (N, hidden)
        return last_hidden


class Fused(nn.Layer):                                   # the whole sequence in one `rnn` operator (cuDNN on a GPU)
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(hp.embedding_size, hp.hidden_size)

    def forward(self, x):
        _, last_hidden = self.gru(x)                     # (layers, N, hidden)
        return last_hidden[-1]


stepped = Classifier(Stepped())
fused = Classifier(Fused())
# The same weights in both, in the same order: embedding; GRU weight_ih, weight_hh, bias_ih, bias_hh (gates
# r, z, c, PyTorch's order and formula); dense.
for mine, theirs in zip(fused.parameters(), stepped.parameters(), strict=True):
    mine.set_value(theirs)
with paddle.no_grad():
    max_difference = (stepped(x_test) - fused(x_test)).abs().max().item()
print(f"largest difference between the two models' logits: {max_difference:.2e}")

# %% tags=["measure"]
lesson.compare(hp, {"stepped": trainer(stepped), "fused": trainer(fused)},
               facts={"fused": {"max_difference": max_difference}})
