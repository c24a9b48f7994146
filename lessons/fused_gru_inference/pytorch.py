# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # A fused GRU's weights at CPU inference, in PyTorch

# %% tags=["setup"]
import torch
import torch.nn as nn
import torch.nn.functional as F

from rosetta import lesson
from rosetta.data import imdb

hp = lesson.settings("fused_gru_inference")
torch.manual_seed(hp.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")   # training: on the GPU where there is one
x_train, y_train, x_test, _ = imdb.load(hp)             # token ids (N, max_length), labels 1 = positive
x_train, y_train = torch.from_numpy(x_train).long().to(device), torch.from_numpy(y_train).long().to(device)
x_test = torch.from_numpy(x_test).long()


class Fused(nn.Module):
    """The RNN benchmark's model: embedding → GRU (cuDNN's on a GPU) → its last hidden state → dense 2."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(hp.vocabulary_size, hp.embedding_size)
        self.gru = nn.GRU(hp.embedding_size, hp.hidden_size, batch_first=True)
        self.fc = nn.Linear(hp.hidden_size, 2)

    def forward(self, tokens):
        _, last_hidden = self.gru(self.embedding(tokens))
        return self.fc(last_hidden[-1])


model = Fused().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=hp.learning_rate)
for i in range(hp.batches):
    rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
    optimizer.zero_grad()
    F.cross_entropy(model(x_train[rows]), y_train[rows]).backward()
    optimizer.step()
model = model.cpu().eval()                               # inference on the CPU, from here on


# %% tags=["variants"]
class Stepped(nn.Module):
    """The same model with a GRUCell stepped through the sequence: what runs without the fused kernel."""

    def __init__(self, fused):
        super().__init__()
        self.embedding, self.fc = fused.embedding, fused.fc
        self.cell = nn.GRUCell(hp.embedding_size, hp.hidden_size)
        # nn.GRU's layer-0 matrices are GRUCell's, under other names (gates r, z, n in both).
        weights = fused.gru.state_dict()
        self.cell.load_state_dict({name.removesuffix("_l0"): value for name, value in weights.items()})

    def forward(self, tokens):
        x = self.embedding(tokens)
        h = x.new_zeros(len(x), hp.hidden_size)
        for t in range(x.shape[1]):
            h = self.cell(x[:, t], h)
        return self.fc(h)


stepped = Stepped(model).eval()


def predict(net):
    def call():
        with torch.no_grad():
            for start in range(0, len(x_test), hp.batch_size):
                net(x_test[start:start + hp.batch_size])
    return call


with torch.no_grad():
    max_difference = (model(x_test) - stepped(x_test)).abs().max().item()
print(f"largest difference between the fused layer's and the cell's logits: {max_difference:.2e}")

# %% tags=["measure"]
lesson.compare(hp, {"fused": predict(model), "cell": predict(stepped)},
               facts={"cell": {"max_difference": max_difference}})
