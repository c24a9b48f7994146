# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # Time-major input for a GRU, in PaddlePaddle
# Unlike PyTorch's and Gluon's GRU, Paddle's `nn.GRU` defaults to batch-major input (`time_major=False`);
# its `rnn` operator (cuDNN's on a GPU) takes time-major sequences, so batch-major input is transposed on the
# way in and the outputs on the way out.

# %% tags=["setup"]
import os

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

from rosetta import lesson
from rosetta.data import imdb

hp = lesson.settings("time_major")
paddle.seed(hp.seed)
device = paddle.set_device("gpu" if paddle.device.cuda.device_count() else "cpu")   # new tensors go there
x_train, y_train, x_test, _ = imdb.load(hp)             # token ids (N, max_length), labels 1 = positive
x_train, y_train = paddle.to_tensor(x_train, dtype="int64"), paddle.to_tensor(y_train, dtype="int64")
x_test = paddle.to_tensor(x_test[:hp.batch_size], dtype="int64")


class Classifier(nn.Layer):
    """The RNN benchmark's model: embedding → GRU (its last hidden state) → dense 2."""

    def __init__(self, time_major):
        super().__init__()
        self.time_major = time_major
        self.embedding = nn.Embedding(hp.vocabulary_size, hp.embedding_size)
        self.gru = nn.GRU(hp.embedding_size, hp.hidden_size, time_major=time_major)
        self.fc = nn.Linear(hp.hidden_size, 2)

    def forward(self, tokens):                           # tokens: (N, T), as the data comes
        # Time-major: look up the transposed ids, (T, N) → (T, N, embedding); no transpose of the features.
        x = self.embedding(tokens.T if self.time_major else tokens)
        _, last_hidden = self.gru(x)                     # (layers, N, hidden) in both layouts
        return self.fc(last_hidden[-1])                  # logits


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
batch_major = Classifier(time_major=False)              # the GRU benchmark's snippet: nn.GRU's default
time_major = Classifier(time_major=True)
time_major.set_state_dict(batch_major.state_dict())     # the same weights in both
with paddle.no_grad():
    max_difference = (batch_major(x_test) - time_major(x_test)).abs().max().item()
print(f"largest difference between the two layouts' logits: {max_difference:.2e}")

# %% tags=["measure"]
lesson.compare(hp, {"batch_major": trainer(batch_major), "time_major": trainer(time_major)},
               facts={"time_major": {"max_difference": max_difference}})
