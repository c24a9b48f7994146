"""Plain-script twin of snippets/gru_imdb/pytorch.py: the same embedding + GRU classifier, its training loop timed."""
import json
import time

import numpy as np
import torch
from torch import nn

from rosetta import settings
from rosetta.data import imdb

hp = settings("gru_imdb")
torch.manual_seed(hp.seed)
rng = np.random.default_rng(hp.seed)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

x_train, y_train, _, _ = imdb.load(hp)
x_train, y_train = torch.from_numpy(x_train).long().to(device), torch.from_numpy(y_train).long().to(device)


class GRUClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(hp.vocabulary_size, hp.embedding_size)
        self.gru = nn.GRU(hp.embedding_size, hp.hidden_size, batch_first=True)
        self.fc = nn.Linear(hp.hidden_size, 2)
        for name, weight in self.named_parameters():     # uniform weights, zero biases (the snippet's init)
            if "bias" in name:
                nn.init.zeros_(weight)
            else:
                nn.init.uniform_(weight, -hp.init_scale, hp.init_scale)

    def forward(self, tokens):
        _, last_hidden = self.gru(self.embedding(tokens))
        return self.fc(last_hidden[-1])


model = GRUClassifier().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=hp.learning_rate, betas=(hp.beta_1, hp.beta_2), eps=hp.epsilon)
loss_fn = nn.CrossEntropyLoss()

model.train()
shuffle = getattr(hp, "shuffle", True)      # a new order every epoch; the equivalence checks turn it off
n_batches = len(x_train) // hp.batch_size
started = time.perf_counter()
for _ in range(hp.epochs):
    order = torch.from_numpy(rng.permutation(len(x_train)) if shuffle else np.arange(len(x_train))).to(device)
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        optimizer.zero_grad()
        loss = loss_fn(model(x_train[rows]), y_train[rows])
        loss.backward()
        optimizer.step()
if device.type == "cuda":
    torch.cuda.synchronize()
seconds = time.perf_counter() - started
print(json.dumps({"timed_seconds": seconds, "samples": hp.epochs * n_batches * hp.batch_size}))
