# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Keras 3 · TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # GRU sentiment classifier on IMDB with Keras 3
# The same classifier as a `keras.Sequential`, trained with `fit`. One program for three backends:
# `KERAS_BACKEND` (tensorflow, jax or torch) chooses which one runs it.

# %% tags=["setup"]
# [imports]
import importlib
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import keras
import numpy as np

from rosetta import report, settings
from rosetta.data import imdb

# [seeds]
hp = settings("gru_imdb")
keras.utils.set_random_seed(hp.seed)                 # Python, NumPy and the backend's generator
# [device]
backend = keras.backend.backend()                    # "tensorflow", "jax" or "torch", from KERAS_BACKEND
# A new tensor's device in the backend's words: ".../device:GPU:0" (TensorFlow), "cuda:0" (JAX, PyTorch).
on_gpu = any(name in str(keras.ops.zeros(()).device).lower() for name in ("gpu", "cuda"))
# The GPU's math mode. Keras has no switch of its own: each backend's own, as in that framework's tab.
if backend == "tensorflow":
    import tensorflow as tf
    tf.config.experimental.enable_tensor_float_32_execution(False)   # float32, not TF32 (its default; XLA reads it too)
elif backend == "jax":
    import jax
    jax.config.update("jax_default_matmul_precision", "highest")     # float32, not TF32 (XLA's default on a GPU)
elif backend == "torch":
    import torch
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False   # float32, not TF32 (cuDNN's)
    torch.backends.cudnn.benchmark = True                            # cuDNN autotune (PyTorch's default is off)
math_mode = "float32 (TF32 off), autotune on" if on_gpu else "float32"
print(f"Keras {keras.__version__} on {backend} {importlib.import_module(backend).__version__}, "
      f"{'GPU' if on_gpu else 'CPU'}, {math_mode}, profile {hp.profile}")

# %% tags=["data"]
x_train, y_train, x_test, y_test = imdb.load(hp)        # int32 token ids (N, 150), labels 1 = positive
n_train = len(x_train) // hp.batch_size * hp.batch_size  # full batches only, as in the other tabs
x_train, y_train = x_train[:n_train], y_train[:n_train]
print("train", x_train.shape, "test", x_test.shape)

# %% tags=["model"]
# [network]
from keras import layers


def uniform():   # one initializer per tensor: an unseeded instance used twice repeats its values
    return keras.initializers.RandomUniform(-hp.init_scale, hp.init_scale)


model = keras.Sequential([                               # biases start at 0 (Keras' default)
    keras.Input(shape=(hp.max_length,), dtype="int32"),
    layers.Embedding(hp.vocabulary_size, hp.embedding_size, embeddings_initializer=uniform()),
    # Its default reset_after=True is the convention of the other tabs (cuDNN's), on every backend.
    layers.GRU(hp.hidden_size, kernel_initializer=uniform(), recurrent_initializer=uniform()),
    layers.Dense(2, kernel_initializer=uniform()),       # logits
])
# [optimizer, loss]
model.compile(
    # Keras' default epsilon is 1e-7: use the original's 1e-8.
    optimizer=keras.optimizers.Adam(learning_rate=hp.learning_rate, beta_1=hp.beta_1,
                                    beta_2=hp.beta_2, epsilon=hp.epsilon),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    # Keras' default, written out: XLA on JAX, and on TensorFlow where the layers allow it (on a GPU the GRU's cuDNN
    # kernel does not: a tf.function graph); eager on PyTorch.
    jit_compile="auto",
)
# [fused-kernel]
# GRU's default use_cudnn="auto" takes cuDNN's fused kernel on a GPU with TensorFlow and PyTorch. Elsewhere
# (a CPU; JAX, which has no fused GRU) it loops over the time steps: a while-loop in TensorFlow's graph,
# a jax.lax.scan, or a Python loop of PyTorch calls.
fused_kernel = "yes (cuDNN)" if on_gpu and backend != "jax" else "no (a loop over time steps)"
print(model.count_params(), "parameters; fused kernel:", fused_kernel)

# %% tags=["train"]
# [batches, training-step] fit() shuffles, batches and steps in one call
history = model.fit(x_train, y_train, batch_size=hp.batch_size, epochs=hp.epochs, shuffle=hp.shuffle, verbose=0)
# [progress]
for epoch, loss in enumerate(history.history["loss"], 1):
    print(f"epoch {epoch}: mean loss {loss:.3f}")

# %% tags=["infer"]
# [predictions]
logits = model.predict(x_test, batch_size=hp.batch_size, verbose=0)
# [accuracy]
accuracy = float(np.mean(logits.argmax(axis=1) == y_test))
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_train, fused_kernel=fused_kernel)
