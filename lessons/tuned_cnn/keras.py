# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # The CNN's training step, as written and tuned, in Keras 3 (on each backend)
# Keras' one speed-up switch is its compiler, `compile(jit_compile=...)`, whose default "auto" each
# backend resolves its own way: beside "auto", the other setting (True where "auto" is off, False where on).

# %% tags=["setup"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import time

import keras
from keras import layers

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("tuned_cnn")
keras.utils.set_random_seed(hp.seed)
backend = keras.backend.backend()                    # "tensorflow", "jax" or "torch", from KERAS_BACKEND
on_gpu = any(name in str(keras.ops.zeros(()).device).lower() for name in ("gpu", "cuda"))
# As in the snippet: cuDNN is fastest channels-first; TensorFlow's CPU kernels only run channels-last.
keras.config.set_image_data_format("channels_first" if on_gpu else "channels_last")
x_train, y_train, _, _ = cifar10.load(hp, layout="NCHW" if on_gpu else "NHWC")


def vggish():
    """The CNN benchmark's network, copied from its snippet."""
    return keras.Sequential([
        keras.Input(shape=x_train.shape[1:]),
        layers.Conv2D(50, 3, padding="same", activation="relu"),
        layers.Conv2D(50, 3, padding="same"),
        layers.MaxPooling2D(2),
        layers.Activation("relu"),
        layers.Dropout(hp.dropout_conv),
        layers.Conv2D(100, 3, padding="same", activation="relu"),
        layers.Conv2D(100, 3, padding="same"),
        layers.MaxPooling2D(2),
        layers.Activation("relu"),
        layers.Dropout(hp.dropout_conv),
        layers.Flatten(),
        layers.Dense(512, activation="relu"),
        layers.Dropout(hp.dropout_dense),
        layers.Dense(10),                                # logits
    ])


def trainer(model):
    """The snippet's fit() call: one epoch of `batches` steps per call."""
    def train():
        model.fit(x_train, y_train, batch_size=hp.batch_size, epochs=1, shuffle=hp.shuffle, verbose=0)
    return train


as_written, twin = vggish(), vggish()
twin.set_weights(as_written.get_weights())              # the same starting weights in both


# %% tags=["variants"]
def sgd():
    return keras.optimizers.SGD(learning_rate=hp.learning_rate, momentum=hp.momentum)


loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

# As written: compile() leaves jit_compile at "auto". On JAX that is jax.jit, always (XLA); on TensorFlow,
# XLA on a GPU only (on a CPU: a tf.function graph of TensorFlow's own kernels); on PyTorch, no compiler.
as_written.compile(optimizer=sgd(), loss=loss)
models = {"as_written": as_written}
if not as_written.jit_compile:
    # jit_compile=True: the whole step compiled, once, in the first call: XLA on TensorFlow, torch.compile on
    # PyTorch. There Keras' torch.compile always uses Inductor (40 s of code generation for this step on a 2-core
    # CPU): where the lesson asks for another backend (the smoke run's tracing-only "eager") or leaves it out of
    # a profile (keras_torch_compile), the variant is left out.
    if backend != "torch" or (hp.torch_compile_backend == "inductor" and hp.keras_torch_compile):
        twin.compile(optimizer=sgd(), loss=loss, jit_compile=True)
        models["compiled"] = twin
else:
    # jit_compile=False: no compiler. On JAX every operation then runs on its own from Python.
    twin.compile(optimizer=sgd(), loss=loss, jit_compile=False)
    models["uncompiled"] = twin
print(backend, "jit_compile:", {name: model.jit_compile for name, model in models.items()})

# %% tags=["measure"]
variants = {name: trainer(model) for name, model in models.items()}
first_call = {}                                          # the first call, compilation included, timed once
for name, train in variants.items():
    started = time.perf_counter()
    train()
    first_call[name] = {"first_call_seconds": time.perf_counter() - started}
lesson.compare(hp, variants, facts=first_call)
