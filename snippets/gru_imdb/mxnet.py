# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # GRU sentiment classifier on IMDB with MXNet Gluon
# The same classifier as a hybridized Gluon block around the fused `rnn.GRU` layer.

# %% tags=["setup"]
# [imports]
import os

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon
from mxnet.gluon import nn, rnn

from rosetta import report, settings
from rosetta.data import imdb

# [seeds]
hp = settings("gru_imdb")
mx.random.seed(hp.seed)
rng = np.random.default_rng(hp.seed)
# [device]
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
# float32, not TF32: MXNet has no switch for cuDNN's default; the row's environment sets NVIDIA_TF32_OVERRIDE=0.
# cuDNN autotune is MXNet's default (MXNET_CUDNN_AUTOTUNE_DEFAULT=1).
tf32 = "TF32 off" if os.environ.get("NVIDIA_TF32_OVERRIDE") == "0" else "TF32 allowed"
math_mode = f"float32 ({tf32}), cuDNN autotune on" if ctx.device_type == "gpu" else "float32"
print(f"MXNet {mx.__version__} on {ctx}, {math_mode}, profile {hp.profile}")

# %% tags=["data"]
x_train, y_train, x_test, y_test = imdb.load(hp)        # int32 token ids (N, 150), labels 1 = positive
x_train, y_train = mx.nd.array(x_train, ctx=ctx), mx.nd.array(y_train, ctx=ctx)
x_test, y_test = mx.nd.array(x_test, ctx=ctx), mx.nd.array(y_test, ctx=ctx)
print("train", x_train.shape, "test", x_test.shape)


# %% tags=["model"]
# [network]
class GRUClassifier(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(hp.vocabulary_size, hp.embedding_size)
        # rnn.GRU is one fused operator over the whole sequence (cuDNN on a GPU, a fused CPU
        # kernel otherwise). "NTC": batch, time, channels, like the other tabs' input.
        self.gru = rnn.GRU(hp.hidden_size, layout="NTC", input_size=hp.embedding_size)
        self.fc = nn.Dense(2)

    def hybrid_forward(self, F, tokens):
        outputs = self.gru(self.embedding(tokens))       # (N, T, hidden)
        return self.fc(F.squeeze(F.slice_axis(outputs, axis=1, begin=-1, end=None), axis=1))  # last step


model = GRUClassifier()
model.initialize(mx.init.Uniform(hp.init_scale), ctx=ctx)   # biases keep their own default: 0
model.hybridize(static_alloc=True, static_shape=True)
# [optimizer]
trainer = gluon.Trainer(model.collect_params(), "adam",
                        {"learning_rate": hp.learning_rate, "beta1": hp.beta_1, "beta2": hp.beta_2,
                         "epsilon": hp.epsilon})
# [loss]
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
# [fused-kernel]
fused_kernel = "yes (cuDNN)" if ctx.device_type == "gpu" else "yes (fused CPU RNN operator)"
print(model, "\nfused kernel:", fused_kernel)

# %% tags=["train"]
# [batches]
n_batches = x_train.shape[0] // hp.batch_size            # full batches only
for epoch in range(hp.epochs):
    order = rng.permutation(x_train.shape[0]) if hp.shuffle else np.arange(x_train.shape[0])   # a new order each epoch
    order = mx.nd.array(order, ctx=ctx)
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        # [training-step]
        with autograd.record():
            loss = loss_fn(model(x_train.take(rows)), y_train.take(rows))
        loss.backward()
        trainer.step(hp.batch_size)
    # [progress]
    print(f"epoch {epoch + 1}: last batch loss {loss.mean().asscalar():.3f}")
mx.nd.waitall()                                          # MXNet is asynchronous: wait before the clock stops

# %% tags=["infer"]
# [predictions]
predictions = mx.nd.concat(*[model(x_test[i:i + hp.batch_size]).argmax(axis=1)
                             for i in range(0, x_test.shape[0], hp.batch_size)], dim=0)
# [accuracy]
accuracy = float((predictions == y_test).mean().asscalar())
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size, fused_kernel=fused_kernel)
