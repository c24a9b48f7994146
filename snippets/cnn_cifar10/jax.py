# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: JAX'
#     language: python
#     name: rosetta-jax
# ---

# %% [markdown]
# # CNN on CIFAR-10 with JAX (Flax NNX)
# The same network as a Flax `nnx.Module`, trained with Optax's SGD + momentum in one training
# step that `nnx.jit` compiles with XLA on its first call.

# %% tags=["setup"]
# [imports]
import flax
import jax
import jax.numpy as jnp
import optax
from flax import nnx

from rosetta import report, settings
from rosetta.data import cifar10

# [seeds]
hp = settings("cnn_cifar10")
# JAX has no global random state: every random draw takes a key, split off from a seeded one.
params_key, dropout_key, shuffle_key = jax.random.split(jax.random.key(hp.seed), 3)
# [device]
device = jax.devices()[0]
jax.config.update("jax_default_matmul_precision", "highest")   # float32, not TF32 (XLA's default on a GPU)
math_mode = "float32 (TF32 off), XLA autotune on" if device.platform == "gpu" else "float32"
print(f"JAX {jax.__version__}, Flax {flax.__version__}, Optax {optax.__version__} on {device.platform}, "
      f"{math_mode}, channels last, profile {hp.profile}")

# %% tags=["data"]
# Channels last (N, 32, 32, 3): Flax's native layout (on a GPU, XLA picks the layout cuDNN wants).
x_train, y_train, x_test, y_test = cifar10.load(hp, layout="NHWC")
# Whole data set on the device once; batches are slices of it.
x_train, y_train, x_test, y_test = jax.device_put((x_train, y_train, x_test, y_test))
print("train", x_train.shape, "test", x_test.shape)


# %% tags=["model"]
# [network]
class VGGish(nnx.Module):
    def __init__(self, rngs, n_classes=10):
        # Flax's default kernel init is LeCun-normal: ask for Glorot-uniform (biases start at 0).
        glorot = nnx.initializers.glorot_uniform()
        self.conv1 = nnx.Conv(3, 50, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.conv2 = nnx.Conv(50, 50, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.conv3 = nnx.Conv(50, 100, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.conv4 = nnx.Conv(100, 100, (3, 3), padding=1, kernel_init=glorot, rngs=rngs)
        self.fc1 = nnx.Linear(100 * 8 * 8, 512, kernel_init=glorot, rngs=rngs)
        self.fc2 = nnx.Linear(512, n_classes, kernel_init=glorot, rngs=rngs)
        # Dropout draws its masks from the "dropout" key stream of rngs, a new key per call.
        self.dropout_conv = nnx.Dropout(hp.dropout_conv, rngs=rngs)
        self.dropout_dense = nnx.Dropout(hp.dropout_dense, rngs=rngs)

    def __call__(self, x):
        x = nnx.relu(self.conv1(x))
        x = nnx.relu(nnx.max_pool(self.conv2(x), (2, 2), strides=(2, 2)))   # ReLU after pooling: 4x cheaper
        x = self.dropout_conv(x)
        x = nnx.relu(self.conv3(x))
        x = nnx.relu(nnx.max_pool(self.conv4(x), (2, 2), strides=(2, 2)))
        x = self.dropout_conv(x)
        x = nnx.relu(self.fc1(x.reshape(x.shape[0], -1)))                  # flattens (h, w, c)
        x = self.dropout_dense(x)
        return self.fc2(x)                                                   # logits: softmax lives in the loss


model = VGGish(nnx.Rngs(params=params_key, dropout=dropout_key))
# [optimizer] Optax's momentum is PyTorch's form: v = m*v + g; w -= lr*v.
optimizer = nnx.Optimizer(model, optax.sgd(hp.learning_rate, momentum=hp.momentum), wrt=nnx.Param)


# [loss, optimizer] one training step, compiled: the loss, its gradients, the update
@nnx.jit                                                # traced and compiled by XLA on its first call
def train_step(model, optimizer, x, y):
    def loss_fn(model):                                 # softmax inside, on logits; mean over the batch
        return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)                      # updates the model's parameters in place
    return loss


print(sum(p.size for p in jax.tree.leaves(nnx.state(model, nnx.Param))), "parameters")

# %% tags=["train"]
# [batches]
# The first call of train_step traces and compiles it (seconds on a CPU), as it would for any
# reader: that time is part of this cell, once.
model.train()                                           # dropout on
n_batches = len(x_train) // hp.batch_size               # full batches only
for epoch in range(hp.epochs):
    shuffle_key, epoch_key = jax.random.split(shuffle_key)   # a new order each epoch
    order = jax.random.permutation(epoch_key, len(x_train)) if hp.shuffle else jnp.arange(len(x_train))
    for i in range(n_batches):
        rows = order[i * hp.batch_size:(i + 1) * hp.batch_size]
        # [training-step]
        loss = train_step(model, optimizer, x_train[rows], y_train[rows])
    # [progress] JAX dispatches asynchronously: float() waits for the last step, and so for all of them.
    print(f"epoch {epoch + 1}: last batch loss {float(loss):.3f}")


# %% tags=["infer"]
# [predictions]
@nnx.jit
def predict(model, x):
    return model(x).argmax(axis=1)


model.eval()                                            # dropout off
predictions = jnp.concatenate([predict(model, x_test[i:i + hp.batch_size])
                               for i in range(0, len(x_test), hp.batch_size)])
# [accuracy]
accuracy = float((predictions == y_test).mean())
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * n_batches * hp.batch_size)
