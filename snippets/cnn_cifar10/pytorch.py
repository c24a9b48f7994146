# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PyTorch'
#     language: python
#     name: rosetta-pytorch
# ---

# %% [markdown]
# # CNN on CIFAR-10 with PyTorch
# A VGG-style network trained with SGD + momentum, written with `torch.nn` in eager mode.

# %% tags=["setup"]
# [imports]
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from rosetta import report, settings
from rosetta.data import cifar10

# [seeds]
hp = settings("cnn_cifar10")
torch.manual_seed(hp.seed)
rng = np.random.default_rng(hp.seed)
# [device]
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
# cuDNN may try several convolution algorithms once and keep the fastest for these fixed shapes.
torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False   # float32, not TF32 (cuDNN's default)
math_mode = "float32 (TF32 off), cuDNN autotune on" if device.type == "cuda" else "float32"
print(f"PyTorch {torch.__version__} on {device}, {math_mode}, profile {hp.profile}")

# %% tags=["data"]
# Channels first (N, 3, 32, 32): PyTorch's native layout.
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
# Whole data set on the device once; batches are slices of it.
x_train, x_test = torch.from_numpy(x_train).to(device), torch.from_numpy(x_test).to(device)
# PyTorch's cross-entropy wants int64 class indices.
y_train, y_test = torch.from_numpy(y_train).long().to(device), torch.from_numpy(y_test).long().to(device)
print("train", tuple(x_train.shape), "test", tuple(x_test.shape))


# %% tags=["model"]
# [network]
class VGGish(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 50, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(50, 50, kernel_size=3, padding=1)
        self.conv3 = nn.Conv2d(50, 100, kernel_size=3, padding=1)
        self.conv4 = nn.Conv2d(100, 100, kernel_size=3, padding=1)
        self.fc1 = nn.Linear(100 * 8 * 8, 512)
        self.fc2 = nn.Linear(512, n_classes)
        # PyTorch's default init is Kaiming-uniform: switch to Glorot-uniform, zero biases.
        for layer in (self.conv1, self.conv2, self.conv3, self.conv4, self.fc1, self.fc2):
            nn.init.xavier_uniform_(layer.weight)
            nn.init.zeros_(layer.bias)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(F.max_pool2d(self.conv2(x), 2))     # ReLU after pooling: same result, 4x cheaper
        x = F.dropout(x, hp.dropout_conv, training=self.training)
        x = F.relu(self.conv3(x))
        x = F.relu(F.max_pool2d(self.conv4(x), 2))
        x = F.dropout(x, hp.dropout_conv, training=self.training)
        x = F.relu(self.fc1(torch.flatten(x, 1)))
        x = F.dropout(x, hp.dropout_dense, training=self.training)
        return self.fc2(x)                              # logits: softmax lives in the loss


model = VGGish().to(device)
# [optimizer] PyTorch's momentum: v = m*v + g; w -= lr*v. The same steps as v = m*v - lr*g; w += v while lr is fixed.
optimizer = torch.optim.SGD(model.parameters(), lr=hp.learning_rate, momentum=hp.momentum)
# [loss]
loss_fn = nn.CrossEntropyLoss()                 # softmax inside, on logits; mean over the batch
print(sum(p.numel() for p in model.parameters()), "parameters")

# %% tags=["train"]
# [batches]
model.train()                                   # dropout on
n_batches = len(x_train) // hp.batch_size       # full batches only
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
model.eval()                                    # dropout off
with torch.no_grad():
    predictions = torch.cat([model(batch).argmax(1) for batch in x_test.split(hp.batch_size)])
# [accuracy]
accuracy = (predictions == y_test).float().mean().item()
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size)
