# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # GRU sentiment classifier on IMDB with Chainer
# `EmbedID` → `NStepGRU` (one layer) → its last hidden state → `Linear`, trained with Adam.

# %% tags=["setup"]
# [imports]
import os

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np

from rosetta import report, settings
from rosetta.data import imdb

# [seeds]
hp = settings("gru_imdb")
rng = np.random.default_rng(hp.seed)
np.random.seed(hp.seed)                                  # Chainer's initialisers draw from numpy
# [device]
try:
    import cupy as xp
    device = chainer.get_device("@cupy:0")
except ImportError:
    xp, device = np, chainer.get_device("@numpy")
chainer.config.autotune = True                           # cuDNN autotune (Chainer's default is off)
# float32, not TF32: Chainer has no switch for cuDNN's default; the row's environment sets NVIDIA_TF32_OVERRIDE=0.
tf32 = "TF32 off" if os.environ.get("NVIDIA_TF32_OVERRIDE") == "0" else "TF32 allowed"
math_mode = f"float32 ({tf32}), cuDNN autotune on" if xp is not np else "float32"
print(f"Chainer {chainer.__version__} on {device}, {math_mode}, profile {hp.profile}")

# %% tags=["data"]
x_train, y_train, x_test, y_test = imdb.load(hp)        # int32 token ids (N, 150), labels 1 = positive
x_train, y_train, x_test, y_test = (device.send(a) for a in (x_train, y_train, x_test, y_test))
print("train", x_train.shape, "test", x_test.shape)


# %% tags=["model"]
# [network]
class GRUClassifier(chainer.Chain):
    def __init__(self):
        super().__init__()
        uniform = chainer.initializers.Uniform(hp.init_scale)   # biases start at 0
        with self.init_scope():
            self.embed = L.EmbedID(hp.vocabulary_size, hp.embedding_size, initialW=uniform)
            # NStepGRU takes a list of sequences; on a GPU it is cuDNN's fused kernel.
            self.gru = L.NStepGRU(1, hp.embedding_size, hp.hidden_size, dropout=0.0, initialW=uniform)
            self.fc = L.Linear(hp.hidden_size, 2, initialW=uniform)

    def forward(self, tokens):
        sequences = F.separate(self.embed(tokens), axis=0)   # N arrays of (T, embedding)
        last_hidden, _ = self.gru(None, sequences)           # (layers, N, hidden)
        return self.fc(last_hidden[-1])                       # logits


model = GRUClassifier()
model.to_device(device)
# [optimizer]
optimizer = chainer.optimizers.Adam(alpha=hp.learning_rate, beta1=hp.beta_1, beta2=hp.beta_2, eps=hp.epsilon)
optimizer.setup(model)
# [loss]
loss_fn = F.softmax_cross_entropy                        # softmax inside, on logits; mean over the batch
# [fused-kernel]
fused_kernel = "yes (cuDNN)" if xp is not np else "no (CPU: a loop of GRU steps)"
print(sum(p.size for p in model.params()), "parameters; fused kernel:", fused_kernel)

# %% tags=["train"]
# [batches]
n_batches = len(x_train) // hp.batch_size                # full batches only
for epoch in range(hp.epochs):
    order = rng.permutation(len(x_train)) if hp.shuffle else np.arange(len(x_train))   # a new order each epoch
    order = device.send(order)
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        # [training-step]
        loss = loss_fn(model(x_train[rows]), y_train[rows])
        model.cleargrads()
        loss.backward()
        optimizer.update()
    # [progress]
    print(f"epoch {epoch + 1}: last batch loss {float(loss.array):.3f}")

# %% tags=["infer"]
# [predictions]
with chainer.using_config("train", False), chainer.no_backprop_mode():
    predictions = xp.concatenate([model(x_test[i:i + hp.batch_size]).array.argmax(axis=1)
                                  for i in range(0, len(x_test), hp.batch_size)])
# [accuracy]
accuracy = float((predictions == y_test).mean())
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size, fused_kernel=fused_kernel)
