# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Chainer'
#     language: python
#     name: rosetta-chainer
# ---

# %% [markdown]
# # CNN on CIFAR-10 with Chainer
# The same network as a `chainer.Chain` of standard links, trained with `MomentumSGD`.
# Chainer is define-by-run, like PyTorch, which took the idea from it.

# %% tags=["setup"]
# [imports]
import os

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np

from rosetta import report, settings
from rosetta.data import cifar10

# [seeds]
hp = settings("cnn_cifar10")
rng = np.random.default_rng(hp.seed)
np.random.seed(hp.seed)                                  # Chainer's initialisers draw from numpy
# [device]
try:
    import cupy as xp                                    # arrays on the GPU through CuPy
    device = chainer.get_device("@cupy:0")
except ImportError:
    xp, device = np, chainer.get_device("@numpy")
chainer.config.autotune = True                           # cuDNN autotune (Chainer's default is off)
# float32, not TF32: Chainer has no switch for cuDNN's default; the row's environment sets NVIDIA_TF32_OVERRIDE=0.
tf32 = "TF32 off" if os.environ.get("NVIDIA_TF32_OVERRIDE") == "0" else "TF32 allowed"
math_mode = f"float32 ({tf32}), cuDNN autotune on" if xp is not np else "float32"
print(f"Chainer {chainer.__version__} on {device}, {math_mode}, profile {hp.profile}")

# %% tags=["data"]
# Channels first (N, 3, 32, 32). Chainer's softmax_cross_entropy wants int32 labels.
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW")
x_train, y_train, x_test, y_test = (device.send(a) for a in (x_train, y_train, x_test, y_test))
print("train", x_train.shape, "test", x_test.shape)


# %% tags=["model"]
# [network]
class VGGish(chainer.Chain):
    def __init__(self, n_classes=10):
        super().__init__()
        glorot = chainer.initializers.GlorotUniform()   # Chainer's default is LeCun-normal
        with self.init_scope():                          # biases start at 0
            self.conv1 = L.Convolution2D(3, 50, ksize=3, pad=1, initialW=glorot)
            self.conv2 = L.Convolution2D(50, 50, ksize=3, pad=1, initialW=glorot)
            self.conv3 = L.Convolution2D(50, 100, ksize=3, pad=1, initialW=glorot)
            self.conv4 = L.Convolution2D(100, 100, ksize=3, pad=1, initialW=glorot)
            self.fc1 = L.Linear(100 * 8 * 8, 512, initialW=glorot)
            self.fc2 = L.Linear(512, n_classes, initialW=glorot)

    def forward(self, x):
        # F.dropout reads chainer.config.train: on while training, off inside using_config("train", False).
        h = F.relu(self.conv1(x))
        h = F.dropout(F.relu(F.max_pooling_2d(self.conv2(h), 2, 2)), hp.dropout_conv)
        h = F.relu(self.conv3(h))
        h = F.dropout(F.relu(F.max_pooling_2d(self.conv4(h), 2, 2)), hp.dropout_conv)
        h = F.dropout(F.relu(self.fc1(h)), hp.dropout_dense)         # Linear flattens its input itself
        return self.fc2(h)                               # logits


model = VGGish()
model.to_device(device)
# [optimizer]
optimizer = chainer.optimizers.MomentumSGD(lr=hp.learning_rate, momentum=hp.momentum)
optimizer.setup(model)
# [loss]
loss_fn = F.softmax_cross_entropy                        # softmax inside, on logits; mean over the batch
print(sum(p.size for p in model.params()), "parameters")

# %% tags=["train"]
# [batches]
n_batches = len(x_train) // hp.batch_size               # full batches only
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
    print(f"epoch {epoch + 1}: last batch loss {float(loss.array):.3f}")   # float() also waits for the GPU

# %% tags=["infer"]
# [predictions]
with chainer.using_config("train", False), chainer.no_backprop_mode():
    predictions = xp.concatenate([model(x_test[i:i + hp.batch_size]).array.argmax(axis=1)
                                  for i in range(0, len(x_test), hp.batch_size)])
# [accuracy]
accuracy = float((predictions == y_test).mean())
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size)
