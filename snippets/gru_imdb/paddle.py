# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # GRU sentiment classifier on IMDB with PaddlePaddle
# Embedding → one GRU layer → its output at the last time step → dense 2, trained with Adam, in Paddle's
# dynamic graph.

# %% tags=["setup"]
# [imports]
import os

# Paddle computes on one CPU thread unless OMP_NUM_THREADS says otherwise before it is imported: one per core.
os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))
import numpy as np
import paddle
import paddle.nn as nn

from rosetta import report, settings
from rosetta.data import imdb

# [seeds]
hp = settings("gru_imdb")
paddle.seed(hp.seed)
rng = np.random.default_rng(hp.seed)
# [device]
device = paddle.set_device("gpu" if paddle.device.cuda.device_count() else "cpu")
if not device.is_cpu_place():
    paddle.set_flags({"FLAGS_cudnn_exhaustive_search": True})   # cuDNN autotune (Paddle's default is off)
# float32, not TF32: Paddle has no switch of its own; the row's environment sets NVIDIA_TF32_OVERRIDE=0.
tf32 = "TF32 off" if os.environ.get("NVIDIA_TF32_OVERRIDE") == "0" else "TF32 allowed"
math_mode = "float32" if device.is_cpu_place() else f"float32 ({tf32}), cuDNN autotune on"
print(f"PaddlePaddle {paddle.__version__} on {device}, {math_mode}, profile {hp.profile}")

# %% tags=["data"]
x_train, y_train, x_test, y_test = imdb.load(hp)        # int32 token ids (N, 150), labels 1 = positive
# Embedding lookups and cross-entropy want int64 in Paddle too.
x_train, x_test = paddle.to_tensor(x_train, dtype="int64"), paddle.to_tensor(x_test, dtype="int64")
y_train, y_test = paddle.to_tensor(y_train, dtype="int64"), paddle.to_tensor(y_test, dtype="int64")
print("train", tuple(x_train.shape), "test", tuple(x_test.shape))


# %% tags=["model"]
# [network]
class GRUClassifier(nn.Layer):
    def __init__(self):
        super().__init__()
        # Every weight uniform in ±init_scale and every bias 0, as in the other tabs (Paddle's defaults differ).
        uniform = nn.initializer.Uniform(-hp.init_scale, hp.init_scale)
        zeros = nn.initializer.Constant(0.0)
        self.embedding = nn.Embedding(hp.vocabulary_size, hp.embedding_size, weight_attr=uniform)
        # nn.GRU runs the whole sequence in one `rnn` operator: cuDNN's fused kernel on a GPU.
        self.gru = nn.GRU(hp.embedding_size, hp.hidden_size, weight_ih_attr=uniform, weight_hh_attr=uniform,
                          bias_ih_attr=zeros, bias_hh_attr=zeros)     # batch first: Paddle's default
        self.fc = nn.Linear(hp.hidden_size, 2, weight_attr=uniform, bias_attr=zeros)

    def forward(self, tokens):
        _, last_hidden = self.gru(self.embedding(tokens))   # (layers, N, hidden): the last time step
        return self.fc(last_hidden[-1])                       # logits


model = GRUClassifier()
# [optimizer]
optimizer = paddle.optimizer.Adam(learning_rate=hp.learning_rate, beta1=hp.beta_1, beta2=hp.beta_2,
                                  epsilon=hp.epsilon, parameters=model.parameters())
# [loss]
loss_fn = nn.CrossEntropyLoss()                          # softmax inside, on logits; mean over the batch
# [fused-kernel]
fused_kernel = "yes (cuDNN)" if not device.is_cpu_place() else "no (CPU: Paddle's rnn operator loops over time steps)"
print(sum(int(p.numel()) for p in model.parameters()), "parameters; fused kernel:", fused_kernel)

# %% tags=["train"]
# [batches]
model.train()
n_batches = len(x_train) // hp.batch_size                # full batches only
for epoch in range(hp.epochs):
    order = rng.permutation(len(x_train)) if hp.shuffle else np.arange(len(x_train))   # a new order each epoch
    order = paddle.to_tensor(order)
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        # [training-step]
        loss = loss_fn(model(x_train[rows]), y_train[rows])
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()                           # Paddle's name for zero_grad
    # [progress]
    print(f"epoch {epoch + 1}: last batch loss {loss.item():.3f}")   # .item() also waits for the GPU

# %% tags=["infer"]
# [predictions]
model.eval()
with paddle.no_grad():
    predictions = paddle.concat([model(x_test[i:i + hp.batch_size]).argmax(1)
                                 for i in range(0, len(x_test), hp.batch_size)])
# [accuracy]
accuracy = (predictions == y_test).astype("float32").mean().item()
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size, fused_kernel=fused_kernel)
