# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # Adam's epsilon, before or after the bias correction, in PyTorch

# %% tags=["setup"]
import itertools
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from rosetta import lesson
from rosetta.data import imdb

hp = lesson.settings("adam_epsilon")
torch.manual_seed(hp.seed)
x_train, y_train, x_test, y_test = imdb.load(hp)        # int32 token ids (N, max_length), labels 1 = positive
x_train, x_test = torch.from_numpy(x_train).long(), torch.from_numpy(x_test).long()
y_train, y_test = torch.from_numpy(y_train).long(), torch.from_numpy(y_test).long()


class GRUClassifier(nn.Module):
    """The GRU benchmark's model: embedding, one GRU layer, dense 2 on the last hidden state."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(hp.vocabulary_size, hp.embedding_size)
        self.gru = nn.GRU(hp.embedding_size, hp.hidden_size, batch_first=True)
        self.fc = nn.Linear(hp.hidden_size, 2)

    def forward(self, tokens):
        _, last_hidden = self.gru(self.embedding(tokens))
        return self.fc(last_hidden[-1])


start = GRUClassifier()
for name, weight in start.named_parameters():           # the benchmark's start: uniform ±init_scale, zero biases
    if "bias" in name:
        nn.init.zeros_(weight)
    else:
        nn.init.uniform_(weight, -hp.init_scale, hp.init_scale)


def train(adam):
    """One epoch over the training reviews, in order, from the same weights every time."""
    model = GRUClassifier()
    model.load_state_dict(start.state_dict())
    optimizer = adam(model.parameters())
    for first in range(0, len(x_train) - hp.batch_size + 1, hp.batch_size):
        optimizer.zero_grad()
        F.cross_entropy(model(x_train[first:first + hp.batch_size]), y_train[first:first + hp.batch_size]).backward()
        optimizer.step()
    return model


@torch.no_grad()
def test_accuracy(model):
    predictions = torch.cat([model(reviews).argmax(1) for reviews in x_test.split(500)])
    return {"accuracy": (predictions == y_test).float().mean().item()}


# %% tags=["variants"]
def adam_after_correction(weights):
    # PyTorch's Adam: w -= lr·m̂/(√v̂ + ε), with m̂ = m/(1−β₁ᵗ) and v̂ = v/(1−β₂ᵗ).
    return torch.optim.Adam(weights, lr=hp.learning_rate, betas=(hp.beta_1, hp.beta_2), eps=hp.epsilon)


def adam_before_correction(weights):
    # Keras' form, w -= lr·(√(1−β₂ᵗ)/(1−β₁ᵗ))·m/(√v + ε), is PyTorch's with ε/√(1−β₂ᵗ) in place of ε:
    # no option moves ε, so a hook sets that value before each step (32× ε at the first step).
    optimizer = adam_after_correction(weights)
    steps = itertools.count(1)

    def epsilon_before_bias_correction(optimizer, args, kwargs):
        t = next(steps)
        for group in optimizer.param_groups:
            group["eps"] = hp.epsilon / math.sqrt(1 - hp.beta_2 ** t)

    optimizer.register_step_pre_hook(epsilon_before_bias_correction)
    return optimizer


def after_correction():
    return test_accuracy(train(adam_after_correction))


def before_correction():
    return test_accuracy(train(adam_before_correction))


# Once, outside the timed calls: how far apart the two forms leave the embedding.
embeddings = {name: train(adam).embedding.weight.detach()
              for name, adam in (("after", adam_after_correction), ("before", adam_before_correction))}
max_embedding_difference = (embeddings["after"] - embeddings["before"]).abs().max().item()
print(f"largest difference between the two forms' embeddings: {max_embedding_difference:.2e}")

# %% tags=["measure"]
lesson.compare(hp, {"after_correction": after_correction, "before_correction": before_correction},
               facts={"before_correction": {"max_embedding_difference": max_embedding_difference}})
