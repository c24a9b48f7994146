# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Theano'
#     language: python
#     name: rosetta-theano
# ---

# %% [markdown]
# # GRU sentiment classifier on IMDB with Theano
# Embedding → one GRU layer → its last hidden state → dense 2, as a symbolic graph: the GRU cell is a
# Python function that `theano.scan` loops over the time steps, and Adam is written out as `updates=`.

# %% tags=["setup"]
# [imports]
import sys

import numpy as np
import theano
import theano.tensor as T

from rosetta import report, settings
from rosetta.data import imdb

# [seeds]
hp = settings("gru_imdb")
rng = np.random.default_rng(hp.seed)                     # initial weights and the epochs' orders
# [device]
floatX = theano.config.floatX                            # float32, set in THEANO_FLAGS
# theano.scan's loop over time is Cython code generated in 2018 that no longer compiles on Python 3.11
# (the C API changed). Blocking that module's import makes scan fall back to its Python loop, as Theano
# does without a C compiler; each step still runs the compiled GRU cell.
sys.modules["theano.scan_module.scan_perform_ext"] = None
print(f"Theano {theano.__version__} on {theano.config.device}, floatX {floatX}, profile {hp.profile}")

# %% tags=["data"]
x_train, y_train, x_test, y_test = imdb.load(hp)        # int32 token ids (N, 150), labels 1 = positive
print("train", x_train.shape, "test", x_test.shape)


# %% tags=["model"]
# [network]
def uniform(name, *shape):                               # the same start as the other tabs
    return theano.shared(rng.uniform(-hp.init_scale, hp.init_scale, shape).astype(floatX), name=name)


def zeros(name, *shape):
    return theano.shared(np.zeros(shape, floatX), name=name)


hidden = hp.hidden_size
embedding = uniform("embedding", hp.vocabulary_size, hp.embedding_size)
# The three gates side by side, in the order r (reset), z (update), n (candidate); kernels are (in, out).
input_kernel = uniform("gru.input_kernel", hp.embedding_size, 3 * hidden)
recurrent_kernel = uniform("gru.recurrent_kernel", hidden, 3 * hidden)
input_bias, recurrent_bias = zeros("gru.input_bias", 3 * hidden), zeros("gru.recurrent_bias", 3 * hidden)
fc_kernel, fc_bias = uniform("fc.kernel", hidden, 2), zeros("fc.bias", 2)
params = [embedding, input_kernel, recurrent_kernel, input_bias, recurrent_bias, fc_kernel, fc_bias]


def gru_step(x, h, recurrent_kernel, recurrent_bias):    # x: this step's input product x W + b, all gates
    u = T.dot(h, recurrent_kernel) + recurrent_bias
    r = T.nnet.sigmoid(x[:, :hidden] + u[:, :hidden])
    z = T.nnet.sigmoid(x[:, hidden:2 * hidden] + u[:, hidden:2 * hidden])
    n = T.tanh(x[:, 2 * hidden:] + r * u[:, 2 * hidden:])   # reset after the recurrent product: cuDNN's GRU
    return (1 - z) * n + z * h


def classifier(tokens):
    x = embedding[tokens.T]                              # a lookup, time first: (T, N, embedding)
    x = T.dot(x, input_kernel) + input_bias              # the input half of every step in one product
    h0 = T.zeros((tokens.shape[0], hidden), dtype=floatX)
    # scan calls gru_step once per time step (all 150, padding included) and stacks the hidden states;
    # strict=True: the step sees only what it is given, the weights as non_sequences.
    states, _ = theano.scan(gru_step, sequences=x, outputs_info=h0,
                            non_sequences=[recurrent_kernel, recurrent_bias], strict=True)
    return T.dot(states[-1], fc_kernel) + fc_bias        # logits, from the hidden state after the last step


tokens, labels = T.imatrix("tokens"), T.ivector("labels")   # symbolic: int32 (N, 150), int32 (N,)
logits = classifier(tokens)
# [loss]
cost = T.nnet.categorical_crossentropy(T.nnet.softmax(logits), labels).mean()   # mean over the batch
# [optimizer] Theano has no optimizer library: Adam written out, in the form of Kingma & Ba's paper (and Keras',
# MXNet's, Chainer's): the bias correction goes into the step size, lr·√(1−β₂ᵗ)/(1−β₁ᵗ), and ε is
# added to √v (PyTorch adds it to the corrected √v̂). The embedding's gradient is a dense matrix in
# which a word's repeated rows have been summed, as in the other tabs.
t = theano.shared(np.float32(0), name="t")
t_new = t + 1
lr = hp.learning_rate * T.sqrt(1 - hp.beta_2 ** t_new) / (1 - hp.beta_1 ** t_new)
updates = [(t, t_new)]
for w, g in zip(params, T.grad(cost, params)):
    m, v = (theano.shared(np.zeros_like(w.get_value())) for _ in range(2))
    m_new = hp.beta_1 * m + (1 - hp.beta_1) * g
    v_new = hp.beta_2 * v + (1 - hp.beta_2) * T.sqr(g)
    updates += [(m, m_new), (v, v_new), (w, w - lr * m_new / (T.sqrt(v_new) + hp.epsilon))]
# theano.function optimises each graph (the scan and its gradient too) and compiles it to C with g++:
# tens of seconds the first time (cached in base_compiledir afterwards), spent here, not in training.
train = theano.function([tokens, labels], cost, updates=updates)
predict = theano.function([tokens], logits)
# [fused-kernel]
fused_kernel = "no (theano.scan: a Python loop calling the compiled cell once per time step)"
print(sum(p.get_value().size for p in params), "parameters; fused kernel:", fused_kernel)

# %% tags=["train"]
# [batches]
n_batches = len(x_train) // hp.batch_size                # full batches only
for epoch in range(hp.epochs):
    order = rng.permutation(len(x_train)) if hp.shuffle else np.arange(len(x_train))   # a new order each epoch
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        # [training-step]
        loss = train(x_train[rows], y_train[rows])       # one step: forward, backward and the updates
    # [progress]
    print(f"epoch {epoch + 1}: last batch loss {float(loss):.3f}")

# %% tags=["infer"]
# [predictions]
predictions = np.concatenate([predict(x_test[i:i + hp.batch_size]).argmax(axis=1)
                              for i in range(0, len(x_test), hp.batch_size)])
# [accuracy]
accuracy = float((predictions == y_test).mean())
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size, fused_kernel=fused_kernel)
