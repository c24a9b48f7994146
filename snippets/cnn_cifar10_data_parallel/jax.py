# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: JAX'
#     language: python
#     name: rosetta-jax
# ---

# %% [markdown]
# # Data-parallel CNN on CIFAR-10 with JAX (Flax NNX)
# Multi-process JAX: one process per worker, joined by `jax.distributed`, sees every worker's devices as
# one mesh. The batch is an array sharded over the mesh and the weights are replicated on it; the
# training step is the single-device one, and XLA's partitioner adds the gradients' all-reduce
# (gloo collectives on a CPU, NCCL on GPUs).

# %% tags=["setup"]
# [imports]
import os

import flax
import jax
import jax.numpy as jnp
import optax
from flax import nnx
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from rosetta import report, settings
from rosetta.data import cifar10

# [workers] JAX has no launcher: start one process per worker with these variables (under SLURM or
# Open MPI, initialize() finds them itself). On a CPU the processes exchange arrays with gloo.
jax.config.update("jax_cpu_collectives_implementation", "gloo")
jax.distributed.initialize(os.environ["JAX_COORDINATOR_ADDRESS"], int(os.environ["JAX_NUM_PROCESSES"]),
                           int(os.environ["JAX_PROCESS_ID"]))
rank, workers = jax.process_index(), jax.process_count()
# [seeds] The same keys in every worker: the same starting weights and batch order.
hp = settings("cnn_cifar10_data_parallel")
params_key, dropout_key, shuffle_key = jax.random.split(jax.random.key(hp.seed), 3)
# [device] One mesh axis, "data", over every worker's devices.
mesh = jax.make_mesh((jax.device_count(),), ("data",))
by_rows, replicated = NamedSharding(mesh, P("data")), NamedSharding(mesh, P())
jax.config.update("jax_default_matmul_precision", "highest")   # float32, not TF32
print(f"JAX {jax.__version__}, Flax {flax.__version__}, worker {rank} of {workers}, "
      f"{jax.device_count()} devices on {jax.devices()[0].platform}, profile {hp.profile}")

# %% tags=["data"]
# Every worker holds the data set; each feeds its share of every batch to the sharded array.
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NHWC")
share = hp.batch_size // workers


def sharded(local_rows):
    """One global array, sharded by rows over the workers, from this worker's rows."""
    return jax.make_array_from_process_local_data(by_rows, local_rows)


print("train", x_train.shape, "test", x_test.shape, f"{share} images a step per worker")


# %% tags=["model"]
# [network]
class VGGish(nnx.Module):
    def __init__(self, rngs, n_classes=10):
        glorot = nnx.initializers.glorot_uniform()
        self.conv1 = nnx.Conv(3, 50, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.conv2 = nnx.Conv(50, 50, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.conv3 = nnx.Conv(50, 100, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.conv4 = nnx.Conv(100, 100, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.fc1 = nnx.Linear(100 * 8 * 8, 512, kernel_init=glorot, rngs=rngs)
        self.fc2 = nnx.Linear(512, n_classes, kernel_init=glorot, rngs=rngs)
        self.dropout_conv = nnx.Dropout(hp.dropout_conv, rngs=rngs)
        self.dropout_dense = nnx.Dropout(hp.dropout_dense, rngs=rngs)

    def __call__(self, x):
        x = nnx.relu(self.conv1(x))
        x = nnx.relu(nnx.max_pool(self.conv2(x), (2, 2), strides=(2, 2)))
        x = self.dropout_conv(x)
        x = nnx.relu(self.conv3(x))
        x = nnx.relu(nnx.max_pool(self.conv4(x), (2, 2), strides=(2, 2)))
        x = self.dropout_conv(x)
        x = nnx.relu(self.fc1(x.reshape(x.shape[0], -1)))
        x = self.dropout_dense(x)
        return self.fc2(x)


model = VGGish(nnx.Rngs(params=params_key, dropout=dropout_key))
# Every worker built the same weights: make them one array replicated over the mesh.
nnx.update(model, jax.tree.map(lambda a: jax.make_array_from_process_local_data(replicated, a),
                               nnx.state(model)))
# [optimizer] Its momentum buffers follow the weights: replicated too.
optimizer = nnx.Optimizer(model, optax.sgd(hp.learning_rate, momentum=hp.momentum), wrt=nnx.Param)


# [loss] The single-device step: the mean over the global batch, whose rows live on all the workers.
@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()

    loss, grads = nnx.value_and_grad(loss_fn)(model)     # XLA all-reduces the gradients over "data"
    optimizer.update(model, grads)
    return loss


print(sum(p.size for p in jax.tree.leaves(nnx.state(model, nnx.Param))), "parameters in every worker")

# %% tags=["train"]
# [batches]
model.train()
n_batches = len(x_train) // hp.batch_size
for epoch in range(hp.epochs):
    shuffle_key, epoch_key = jax.random.split(shuffle_key)   # the same order in every worker
    order = jax.random.permutation(epoch_key, len(x_train)) if hp.shuffle else jnp.arange(len(x_train))
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size][rank::workers]   # this worker's share
        # [training-step]
        loss = train_step(model, optimizer, sharded(x_train[rows]), sharded(y_train[rows]))
    # [progress] The loss is replicated: every worker holds the whole batch's mean.
    print(f"epoch {epoch + 1}: last batch loss {float(loss):.3f}")


# %% tags=["infer"]
# [predictions] Each worker feeds its share of the test set; the predictions are sharded like it.
@nnx.jit
def predict(model, x):
    return model(x).argmax(axis=1)


model.eval()
predictions = predict(model, sharded(x_test[rank::workers]))
# [accuracy] The mean over the sharded predictions: computed on every worker's share, replicated.
accuracy = float(jax.jit(jnp.mean, out_shardings=replicated)(predictions == sharded(y_test[rank::workers])))
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size)
