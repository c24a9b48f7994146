# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # Fused RNN layers, in PyTorch

# %% tags=["setup"]
import torch
import torch.nn as nn
import torch.nn.functional as F

from rosetta import lesson
from rosetta.data import imdb

hp = lesson.settings("fused_rnn")
torch.manual_seed(hp.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x_train, y_train, x_test, _ = imdb.load(hp)             # token ids (N, max_length), labels 1 = positive
x_train, y_train = torch.from_numpy(x_train).long().to(device), torch.from_numpy(y_train).long().to(device)
x_test = torch.from_numpy(x_test[:hp.batch_size]).long().to(device)


class Classifier(nn.Module):
    """The RNN benchmark's model: embedding → GRU (its last hidden state) → dense 2."""

    def __init__(self, recurrent):
        super().__init__()
        self.embedding = nn.Embedding(hp.vocabulary_size, hp.embedding_size)
        self.recurrent = recurrent
        self.fc = nn.Linear(hp.hidden_size, 2)

    def forward(self, tokens):
        return self.fc(self.recurrent(self.embedding(tokens)))   # logits


def trainer(model):
    optimizer = torch.optim.Adam(model.parameters(), lr=hp.learning_rate)

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x_train[rows]), y_train[rows])
            loss.backward()
            optimizer.step()
        loss.item()                                      # waits for the GPU, if there is one
    return train


# %% tags=["variants"]
class Stepped(nn.Module):                                # one GRUCell call per time step, from Python
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(hp.embedding_size, hp.hidden_size)

    def forward(self, x):                                # x: (N, T, embedding)
        h = x.new_zeros(len(x), hp.hidden_size)
        for t in range(x.shape[1]):
            h = self.cell(x[:, t], h)
        return h


class Fused(nn.Module):                                  # the whole sequence in one call (cuDNN on a GPU)
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(hp.embedding_size, hp.hidden_size, batch_first=True)

    def forward(self, x):
        _, last_hidden = self.gru(x)                     # (layers, N, hidden)
        return last_hidden[-1]


stepped = Classifier(Stepped()).to(device)
fused = Classifier(Fused()).to(device)
# The same weights in both: GRU's weight_ih_l0... are GRUCell's weight_ih... (gates r, z, n).
fused.load_state_dict({name.replace("cell", "gru") + ("_l0" if ".cell." in name else ""): weights
                       for name, weights in stepped.state_dict().items()})
with torch.no_grad():
    max_difference = (stepped(x_test) - fused(x_test)).abs().max().item()
print(f"largest difference between the two models' logits: {max_difference:.2e}")

# %% tags=["measure"]
lesson.compare(hp, {"stepped": trainer(stepped), "fused": trainer(fused)},
               facts={"fused": {"max_difference": max_difference}})
