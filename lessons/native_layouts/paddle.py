# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: PaddlePaddle'
#     language: python
#     name: rosetta-paddle
# ---

# %% [markdown]
# # Native layouts, in PaddlePaddle
# Paddle's layout is the tensors' shape, as in TensorFlow: `data_format="NHWC"` on every `Conv2D` and
# max-pool; the kernels keep their one shape, (out, in, height, width). Paddle has no memory format like
# PyTorch's channels_last. On a CPU its dynamic graph runs Paddle's own kernels (no operation selects a
# oneDNN kernel in Paddle 3.3, whatever `FLAGS_use_mkldnn` says): im2col and MKL's matrix products, computed
# channels first, so a channels-last convolution is transposed to NCHW and back inside the kernel.

# %% tags=["setup"]
import os

os.environ.setdefault("OMP_NUM_THREADS", str(len(os.sched_getaffinity(0))))   # before the import: one per core
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("native_layouts")
paddle.seed(hp.seed)
if paddle.get_device() != "cpu":
    paddle.set_flags({"FLAGS_cudnn_exhaustive_search": True})   # on a GPU: let cuDNN pick its fastest kernels
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW")
x_train, y_train = paddle.to_tensor(x_train), paddle.to_tensor(y_train, dtype="int64")   # on the GPU, if any


class VGGish(nn.Layer):
    """The CNN benchmark's network (dropout left out: it does not change the layout's cost), in `data_format`."""

    def __init__(self, data_format):
        super().__init__()
        self.data_format = data_format
        self.conv1 = nn.Conv2D(3, 50, 3, padding=1, data_format=data_format)
        self.conv2 = nn.Conv2D(50, 50, 3, padding=1, data_format=data_format)
        self.conv3 = nn.Conv2D(50, 100, 3, padding=1, data_format=data_format)
        self.conv4 = nn.Conv2D(100, 100, 3, padding=1, data_format=data_format)
        self.fc1 = nn.Linear(100 * 8 * 8, 512)
        self.fc2 = nn.Linear(512, 10)

    def pool(self, x):
        return F.max_pool2d(x, 2, data_format=self.data_format)

    def forward(self, x):
        x = F.relu(self.pool(self.conv2(F.relu(self.conv1(x)))))
        x = F.relu(self.pool(self.conv4(F.relu(self.conv3(x)))))
        return self.fc2(F.relu(self.fc1(paddle.flatten(x, 1))))   # flattened in the layout's own order


def trainer(model, images):
    optimizer = paddle.optimizer.Momentum(learning_rate=hp.learning_rate, momentum=hp.momentum,
                                          parameters=model.parameters())

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            loss = F.cross_entropy(model(images[rows]), y_train[rows])
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
        loss.item()                                      # waits for the GPU, if there is one
    return train


# %% tags=["variants"]
first = VGGish("NCHW")                                   # Paddle's default: channels first
last = VGGish("NHWC")
last.set_state_dict(first.state_dict())                  # the same starting weights (the kernels' shape is one)
x_first = x_train
# The images moved once, outside the clock; paddle.transpose returns a strided view, so .contiguous() copies it.
x_last = paddle.transpose(x_train, [0, 2, 3, 1]).contiguous()
print("shapes:", tuple(x_first.shape), "(channels first),", tuple(x_last.shape), "(channels last)")

# %% tags=["measure"]
lesson.compare(hp, {"channels_first": trainer(first, x_first), "channels_last": trainer(last, x_last)})
