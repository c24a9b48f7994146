# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # Time-major input for a GRU, in PyTorch

# %% tags=["setup"]
import torch
import torch.nn as nn
import torch.nn.functional as F

from rosetta import lesson
from rosetta.data import imdb

hp = lesson.settings("time_major")
torch.manual_seed(hp.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x_train, y_train, x_test, _ = imdb.load(hp)             # token ids (N, max_length), labels 1 = positive
x_train, y_train = torch.from_numpy(x_train).long().to(device), torch.from_numpy(y_train).long().to(device)
x_test = torch.from_numpy(x_test[:hp.batch_size]).long().to(device)


class Classifier(nn.Module):
    """The RNN benchmark's model: embedding → GRU (its last hidden state) → dense 2."""

    def __init__(self, batch_first):
        super().__init__()
        self.batch_first = batch_first
        self.embedding = nn.Embedding(hp.vocabulary_size, hp.embedding_size)
        self.gru = nn.GRU(hp.embedding_size, hp.hidden_size, batch_first=batch_first)
        self.fc = nn.Linear(hp.hidden_size, 2)

    def forward(self, tokens):                           # tokens: (N, T), as the data comes
        # Time-major: look up the transposed ids, (T, N) → (T, N, embedding); no transpose of the features.
        x = self.embedding(tokens if self.batch_first else tokens.T)
        _, last_hidden = self.gru(x)                     # (layers, N, hidden) in both layouts
        return self.fc(last_hidden[-1])                  # logits


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
batch_major = Classifier(batch_first=True).to(device)   # the GRU benchmark's tab
time_major = Classifier(batch_first=False).to(device)   # nn.GRU's default layout
time_major.load_state_dict(batch_major.state_dict())   # the same weights in both
with torch.no_grad():
    max_difference = (batch_major(x_test) - time_major(x_test)).abs().max().item()
print(f"largest difference between the two layouts' logits: {max_difference:.2e}")

# %% tags=["measure"]
lesson.compare(hp, {"batch_major": trainer(batch_major), "time_major": trainer(time_major)},
               facts={"time_major": {"max_difference": max_difference}})
