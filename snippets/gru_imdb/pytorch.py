# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # GRU sentiment classifier on IMDB with PyTorch
# Embedding → one GRU layer → its output at the last time step → dense 2, trained with Adam.

# %% tags=["setup"]
# [imports]
import numpy as np
import torch
import torch.nn as nn

from rosetta import report, settings
from rosetta.data import imdb

# [seeds]
hp = settings("gru_imdb")
torch.manual_seed(hp.seed)
rng = np.random.default_rng(hp.seed)
# [device]
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.backends.cudnn.benchmark = True                    # cuDNN autotune (PyTorch's default is off)
torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False   # float32, not TF32 (cuDNN's default)
math_mode = "float32 (TF32 off), cuDNN autotune on" if device.type == "cuda" else "float32"
print(f"PyTorch {torch.__version__} on {device}, {math_mode}, profile {hp.profile}")

# %% tags=["data"]
x_train, y_train, x_test, y_test = imdb.load(hp)        # int32 token ids (N, 150), labels 1 = positive
# Embedding lookups and cross-entropy want int64 in PyTorch.
x_train, x_test = torch.from_numpy(x_train).long().to(device), torch.from_numpy(x_test).long().to(device)
y_train, y_test = torch.from_numpy(y_train).long().to(device), torch.from_numpy(y_test).long().to(device)
print("train", tuple(x_train.shape), "test", tuple(x_test.shape))


# %% tags=["model"]
# [network]
class GRUClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(hp.vocabulary_size, hp.embedding_size)
        # nn.GRU runs the whole sequence in one call: cuDNN's fused kernel on a GPU.
        self.gru = nn.GRU(hp.embedding_size, hp.hidden_size, batch_first=True)
        self.fc = nn.Linear(hp.hidden_size, 2)
        for name, weight in self.named_parameters():     # the same start as the other tabs
            if "bias" in name:
                nn.init.zeros_(weight)
            else:
                nn.init.uniform_(weight, -hp.init_scale, hp.init_scale)

    def forward(self, tokens):
        _, last_hidden = self.gru(self.embedding(tokens))   # (layers, N, hidden): the last time step
        return self.fc(last_hidden[-1])                       # logits


model = GRUClassifier().to(device)
# [optimizer]
optimizer = torch.optim.Adam(model.parameters(), lr=hp.learning_rate,
                             betas=(hp.beta_1, hp.beta_2), eps=hp.epsilon)
# [loss]
loss_fn = nn.CrossEntropyLoss()                          # softmax inside, on logits; mean over the batch
# [fused-kernel]
fused_kernel = "yes (cuDNN)" if device.type == "cuda" and torch.backends.cudnn.enabled else \
    "no (CPU: ATen loops over time steps)"
print(sum(p.numel() for p in model.parameters()), "parameters; fused kernel:", fused_kernel)

# %% tags=["train"]
# [batches]
model.train()
n_batches = len(x_train) // hp.batch_size                # full batches only
for epoch in range(hp.epochs):
    order = rng.permutation(len(x_train)) if hp.shuffle else np.arange(len(x_train))   # a new order each epoch
    order = torch.from_numpy(order).to(device)
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        # [training-step]
        optimizer.zero_grad()
        loss = loss_fn(model(x_train[rows]), y_train[rows])
        loss.backward()
        optimizer.step()
    # [progress]
    print(f"epoch {epoch + 1}: last batch loss {loss.item():.3f}")   # .item() also waits for the GPU

# %% tags=["infer"]
# [predictions]
model.eval()
with torch.no_grad():
    predictions = torch.cat([model(batch).argmax(1) for batch in x_test.split(hp.batch_size)])
# [accuracy]
accuracy = (predictions == y_test).float().mean().item()
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size, fused_kernel=fused_kernel)
