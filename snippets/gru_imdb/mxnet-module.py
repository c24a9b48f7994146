# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # GRU sentiment classifier on IMDB with the MXNet Module API
# The same classifier as a symbolic graph around `mx.rnn.FusedRNNCell`, the `RNN` operator over
# the whole sequence, trained by an `mx.mod.Module`.

# %% tags=["setup"]
# [imports]
import os

import mxnet as mx
import numpy as np

from rosetta import report, settings
from rosetta.data import imdb

# [seeds]
hp = settings("gru_imdb")
mx.random.seed(hp.seed)                                  # the initializer draws from MXNet's generator
np.random.seed(hp.seed)                                  # NDArrayIter shuffles with numpy's
# [device]
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
# float32, not TF32: MXNet has no switch for cuDNN's default; the row's environment sets NVIDIA_TF32_OVERRIDE=0.
# cuDNN autotune is MXNet's default (MXNET_CUDNN_AUTOTUNE_DEFAULT=1).
tf32 = "TF32 off" if os.environ.get("NVIDIA_TF32_OVERRIDE") == "0" else "TF32 allowed"
math_mode = f"float32 ({tf32}), cuDNN autotune on" if ctx.device_type == "gpu" else "float32"
print(f"MXNet {mx.__version__} on {ctx}, {math_mode}, profile {hp.profile}")

# %% tags=["data"]
x_train, y_train, x_test, y_test = imdb.load(hp)        # int32 token ids (N, 150), labels 1 = positive
# The iterators hold float32 copies (token ids below 2^24 stay exact); Embedding takes them as they are.
train_iter = mx.io.NDArrayIter(x_train, y_train, batch_size=hp.batch_size, shuffle=hp.shuffle,
                               last_batch_handle="discard")   # full batches only
# The last test batch is padded to a full one; predict() drops the padding from its results.
test_iter = mx.io.NDArrayIter(x_test, y_test, batch_size=hp.batch_size, last_batch_handle="pad")
print("train", x_train.shape, "test", x_test.shape)

# %% tags=["model"]
# [network]
tokens = mx.sym.Variable("data")                         # (N, T)
# The RNN operator runs time-major (T, N, C): transpose the token ids, not the embeddings.
embedded = mx.sym.Embedding(mx.sym.transpose(tokens), input_dim=hp.vocabulary_size,
                            output_dim=hp.embedding_size, name="embedding")   # (T, N, embedding)
# One fused operator over all time steps (cuDNN on a GPU, a fused CPU kernel otherwise), its
# weights packed into one vector, gru_parameters; it starts from a zero state.
gru = mx.rnn.FusedRNNCell(hp.hidden_size, mode="gru", prefix="gru_")
outputs, _ = gru.unroll(hp.max_length, embedded, layout="TNC", merge_outputs=True)   # (T, N, hidden)
net = mx.sym.FullyConnected(mx.sym.SequenceLast(outputs), num_hidden=2, name="fc")   # last step -> logits
# [loss]
net = mx.sym.SoftmaxOutput(net, name="softmax")          # softmax forward, cross-entropy gradient backward

# [network]
mod = mx.mod.Module(net, context=ctx)
mod.bind(data_shapes=train_iter.provide_data, label_shapes=train_iter.provide_label)
# Uniform weights; parameters named *_bias start at 0. The packed GRU vector has its own
# initializer (mx.init.FusedRNN), which applies this one to each matrix and bias inside it.
mod.init_params(initializer=mx.init.Uniform(hp.init_scale))
# [optimizer]
mod.init_optimizer(optimizer="adam", optimizer_params={"learning_rate": hp.learning_rate, "beta1": hp.beta_1,
                                                       "beta2": hp.beta_2, "epsilon": hp.epsilon})
loss = mx.metric.CrossEntropy()    # not the loss trained on (that is the graph's end): what the printout shows
# [fused-kernel]
fused_kernel = "yes (cuDNN)" if ctx.device_type == "gpu" else "yes (fused CPU RNN operator)"
print(sum(a.size for a in mod.get_params()[0].values()), "parameters; fused kernel:", fused_kernel)

# %% tags=["train"]
# [batches]
for epoch in range(hp.epochs):
    train_iter.reset()                                   # a new order each epoch (shuffle)
    for batch in train_iter:
        # [training-step]
        mod.forward_backward(batch)
        mod.update()
    # [progress]
    loss.reset()
    mod.update_metric(loss, batch.label)                 # reads the outputs: waits for the last step
    print(f"epoch {epoch + 1}: last batch loss {loss.get()[1]:.3f}")
mx.nd.waitall()                                          # MXNet is asynchronous: wait before the clock stops

# %% tags=["infer"]
# [predictions]
predictions = mod.predict(test_iter).argmax(axis=1).asnumpy()
# [accuracy]
accuracy = float((predictions == y_test).mean())
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * (len(x_train) // hp.batch_size) * hp.batch_size,
       fused_kernel=fused_kernel)
