# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # CNN on CIFAR-10 with PaddlePaddle
# The same network as a `paddle.nn.Layer`, trained with `paddle.optimizer.Momentum` in Paddle's dynamic
# graph (eager mode, its default since Paddle 2.0). The API follows PyTorch's almost name for name.

# %% tags=["setup"]
# [imports]
import os

# Paddle computes on one CPU thread unless OMP_NUM_THREADS says otherwise before it is imported: one per core.
os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))
import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

from rosetta import report, settings
from rosetta.data import cifar10

# [seeds]
hp = settings("cnn_cifar10")
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
# Channels first (N, 3, 32, 32): Paddle's native layout. Tensors go to the device set above.
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
x_train, x_test = paddle.to_tensor(x_train), paddle.to_tensor(x_test)
# Paddle's cross-entropy wants int64 class indices.
y_train, y_test = paddle.to_tensor(y_train, dtype="int64"), paddle.to_tensor(y_test, dtype="int64")
print("train", tuple(x_train.shape), "test", tuple(x_test.shape))


# %% tags=["model"]
# [network]
def glorot():
    # Paddle's Linear starts Glorot-uniform already, its Conv2D He-normal: Glorot-uniform for all, zero biases.
    return {"weight_attr": nn.initializer.XavierUniform(), "bias_attr": nn.initializer.Constant(0.0)}


class VGGish(nn.Layer):
    def __init__(self, n_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2D(3, 50, kernel_size=3, padding=1, **glorot())
        self.conv2 = nn.Conv2D(50, 50, kernel_size=3, padding=1, **glorot())
        self.conv3 = nn.Conv2D(50, 100, kernel_size=3, padding=1, **glorot())
        self.conv4 = nn.Conv2D(100, 100, kernel_size=3, padding=1, **glorot())
        self.fc1 = nn.Linear(100 * 8 * 8, 512, **glorot())    # weight stored (in, out), unlike PyTorch
        self.fc2 = nn.Linear(512, n_classes, **glorot())

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(F.max_pool2d(self.conv2(x), 2))     # ReLU after pooling: same result, 4x cheaper
        x = F.dropout(x, hp.dropout_conv, training=self.training)
        x = F.relu(self.conv3(x))
        x = F.relu(F.max_pool2d(self.conv4(x), 2))
        x = F.dropout(x, hp.dropout_conv, training=self.training)
        x = F.relu(self.fc1(paddle.flatten(x, 1)))
        x = F.dropout(x, hp.dropout_dense, training=self.training)
        return self.fc2(x)                              # logits: softmax lives in the loss


model = VGGish()
# [optimizer] Paddle's momentum is PyTorch's: v = m*v + g; w -= lr*v.
optimizer = paddle.optimizer.Momentum(learning_rate=hp.learning_rate, momentum=hp.momentum,
                                      parameters=model.parameters())
# [loss]
loss_fn = nn.CrossEntropyLoss()                 # softmax inside, on logits; mean over the batch
print(sum(int(p.numel()) for p in model.parameters()), "parameters")

# %% tags=["train"]
# [batches]
model.train()                                   # dropout on
n_batches = len(x_train) // hp.batch_size       # full batches only
for epoch in range(hp.epochs):
    order = rng.permutation(len(x_train)) if hp.shuffle else np.arange(len(x_train))   # a new order each epoch
    order = paddle.to_tensor(order)
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        # [training-step]
        loss = loss_fn(model(x_train[rows]), y_train[rows])
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()                  # Paddle's name for zero_grad
    # [progress]
    print(f"epoch {epoch + 1}: last batch loss {loss.item():.3f}")   # .item() also waits for the GPU

# %% tags=["infer"]
# [predictions]
model.eval()                                    # dropout off
with paddle.no_grad():
    predictions = paddle.concat([model(x_test[i:i + hp.batch_size]).argmax(1)
                                 for i in range(0, len(x_test), hp.batch_size)])
# [accuracy]
accuracy = (predictions == y_test).astype("float32").mean().item()
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size)
