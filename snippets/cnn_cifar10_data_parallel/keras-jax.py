# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Keras 3 · JAX'
#     language: python
#     name: rosetta-jax
# ---

# %% [markdown]
# # Data-parallel CNN on CIFAR-10 with Keras 3 on JAX
# Keras' distribution API: `DataParallel` replicates the weights on every device of every process and
# splits each batch over them; `fit` then runs the single-device training step, and XLA adds the
# gradients' all-reduce. Only the JAX backend runs it on several processes (JAX's multi-process runtime
# underneath), so this tab is Keras on JAX alone. Start one process per worker with the `JAX_*` variables.

# %% tags=["setup"]
# [imports]
import os

import jax
import keras
import numpy as np

from rosetta import report, settings
from rosetta.data import cifar10

# [workers] keras.distribution.initialize() starts JAX's multi-process runtime (jax.distributed) from the
# coordinator's address, the number of processes and this one's; on a CPU they exchange arrays with gloo.
jax.config.update("jax_cpu_collectives_implementation", "gloo")
keras.distribution.initialize(os.environ["JAX_COORDINATOR_ADDRESS"], int(os.environ["JAX_NUM_PROCESSES"]),
                              int(os.environ["JAX_PROCESS_ID"]))
rank, workers = jax.process_index(), jax.process_count()
# Every device of every worker holds the weights; each batch is split over them. Each worker feeds its own
# rows (Keras would shard only a tf.data dataset itself: auto_shard_dataset=False).
keras.distribution.set_distribution(
    keras.distribution.DataParallel(devices=keras.distribution.list_devices(), auto_shard_dataset=False))
# [seeds] The same seeds in every worker: the same starting weights and batch order.
hp = settings("cnn_cifar10_data_parallel")
keras.utils.set_random_seed(hp.seed)
rng = np.random.default_rng(hp.seed)
# [device]
on_gpu = jax.devices()[0].platform == "gpu"
jax.config.update("jax_default_matmul_precision", "highest")     # float32, not TF32
layout = "channels_first" if on_gpu else "channels_last"        # cuDNN's layout on a GPU, oneDNN's on a CPU
keras.config.set_image_data_format(layout)
print(f"Keras {keras.__version__} on JAX {jax.__version__}, worker {rank} of {workers}, "
      f"{len(keras.distribution.list_devices())} devices, {layout}, profile {hp.profile}")

# %% tags=["data"]
# Every worker holds the data set; each trains on its share of every batch.
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NCHW" if layout == "channels_first" else "NHWC")
share = hp.batch_size // workers
print("train", x_train.shape, "test", x_test.shape, f"{share} images a step per worker")

# %% tags=["model"]
# [network]
from keras import layers

# Keras' default kernel initializer is already Glorot-uniform with zero biases.
model = keras.Sequential([
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
    layers.Dense(10),                                    # logits
])
# [optimizer, loss] The loss is the mean over the whole batch, whose rows live on every worker.
model.compile(
    optimizer=keras.optimizers.SGD(learning_rate=hp.learning_rate, momentum=hp.momentum),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=["accuracy"],                                # summed over the workers by evaluate()
)
print(model.count_params(), "parameters in every worker")

# %% tags=["train"]
# [batches]
n_batches = len(x_train) // hp.batch_size
for epoch in range(hp.epochs):
    order = rng.permutation(len(x_train)) if hp.shuffle else np.arange(len(x_train))   # the same in every worker
    # This worker's rows of every batch, interleaved as DistributedSampler deals them out, batch after batch.
    rows = order[:n_batches * hp.batch_size].reshape(n_batches, hp.batch_size)[:, rank::workers].ravel()
    # [training-step] fit() joins every worker's `share` rows into one batch of batch_size, sharded.
    history = model.fit(x_train[rows], y_train[rows], batch_size=share, epochs=1, shuffle=False, verbose=0)
    # [progress]
    print(f"epoch {epoch + 1}: mean loss {history.history['loss'][0]:.3f}")

# %% tags=["infer"]
# [predictions] Each worker feeds its share of the test set to evaluate(), which predicts it batch by batch.
_, accuracy = model.evaluate(x_test[rank::workers], y_test[rank::workers], batch_size=share, verbose=0)
# [accuracy] The whole test set's: Keras' accuracy metric counts the correct predictions of every worker.
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size)
