# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # ReLU after max-pooling, in TensorFlow (tf.nn, no Keras)

# %% tags=["setup"]
import tensorflow as tf

from rosetta import lesson
from rosetta.data import cifar10

hp = lesson.settings("relu_after_pool")
tf.random.set_seed(hp.seed)
x_train, y_train, x_test, _ = cifar10.load(hp, layout="NHWC")        # channels last: TensorFlow's layout on a CPU
y_train = tf.constant(y_train, tf.int64)
glorot = tf.initializers.GlorotUniform(seed=hp.seed)
shapes = [(3, 3, 3, 50), (3, 3, 50, 50), (3, 3, 50, 100), (3, 3, 100, 100), (100 * 8 * 8, 512), (512, 10)]
start = [(glorot(shape), tf.zeros(shape[-1])) for shape in shapes]  # one start, copied into both networks


class VGGish(tf.Module):
    """The CNN benchmark's network (dropout left out: it does not change the order's cost)."""

    def __init__(self, block):
        super().__init__()
        self.block = block
        self.weights = [(tf.Variable(kernel), tf.Variable(bias)) for kernel, bias in start]

    def __call__(self, x):
        (c1, b1), (c2, b2), (c3, b3), (c4, b4), (f1, d1), (f2, d2) = self.weights
        x = self.block(tf.nn.conv2d(tf.nn.relu(tf.nn.conv2d(x, c1, 1, "SAME") + b1), c2, 1, "SAME") + b2)
        x = self.block(tf.nn.conv2d(tf.nn.relu(tf.nn.conv2d(x, c3, 1, "SAME") + b3), c4, 1, "SAME") + b4)
        return tf.nn.relu(tf.reshape(x, (x.shape[0], -1)) @ f1 + d1) @ f2 + d2


# %% tags=["variants"]
def relu_then_pool(x):
    return tf.nn.max_pool2d(tf.nn.relu(x), 2, 2, "VALID")


def pool_then_relu(x):                                              # a quarter of the values reach the ReLU
    return tf.nn.relu(tf.nn.max_pool2d(x, 2, 2, "VALID"))


first, second = VGGish(relu_then_pool), VGGish(pool_then_relu)     # the same weights in both
max_difference = float(tf.reduce_max(tf.abs(first(x_test) - second(x_test))))
print(f"largest difference between the two orders' logits: {max_difference:.2e}")


def trainer(model):
    variables = [v for pair in model.weights for v in pair]
    velocities = [tf.Variable(tf.zeros_like(v)) for v in variables]

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, model(x)))
        for v, velocity, g in zip(variables, velocities, tape.gradient(loss, variables)):
            velocity.assign(hp.momentum * velocity - hp.learning_rate * g)   # classic momentum, as the CNN tab
            v.assign_add(velocity)
        return loss

    def train():
        for i in range(hp.batches):
            rows = slice(i * hp.batch_size, (i + 1) * hp.batch_size)
            loss = train_step(x_train[rows], y_train[rows])
        loss.numpy()                                                # waits for the GPU, if there is one
    return train


# %% tags=["measure"]
lesson.compare(hp, {"relu_then_pool": trainer(first), "pool_then_relu": trainer(second)},
               facts={"pool_then_relu": {"max_difference": max_difference}})
