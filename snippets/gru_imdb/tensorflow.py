# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: TensorFlow'
#     language: python
#     name: rosetta-tensorflow
# ---

# %% [markdown]
# # GRU sentiment classifier on IMDB with TensorFlow (no Keras)
# The same classifier from `tf.Variable`s and `tf.nn` ops: `tf.nn` has no GRU, so the cell's
# equations are written out and folded over the time steps; Adam is written out too.

# %% tags=["setup"]
# [imports]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")   # keep TensorFlow's start-up chatter out
import tensorflow as tf

from rosetta import report, settings
from rosetta.data import imdb

# [seeds]
hp = settings("gru_imdb")
rng = tf.random.Generator.from_seed(hp.seed)         # seeded initial weights
# [device]
on_gpu = bool(tf.config.list_physical_devices("GPU"))
tf.config.experimental.enable_tensor_float_32_execution(False)   # float32, not TF32 (its default on a GPU)
math_mode = "float32 (TF32 off), cuDNN autotune on" if on_gpu else "float32"   # autotune: TensorFlow's default
print(f"TensorFlow {tf.__version__} on {'GPU' if on_gpu else 'CPU'}, {math_mode}, profile {hp.profile}")

# %% tags=["data"]
x_train, y_train, x_test, y_test = imdb.load(hp)        # int32 token ids (N, 150), labels 1 = positive
batches = tf.data.Dataset.from_tensor_slices((x_train, y_train))
if hp.shuffle:
    batches = batches.shuffle(len(x_train), seed=hp.seed)   # a new order every epoch
batches = batches.batch(hp.batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)   # full batches only
test_batches = tf.data.Dataset.from_tensor_slices(x_test).batch(hp.batch_size)
print("train", x_train.shape, "test", x_test.shape)


# %% tags=["model"]
# [network]
def uniform(*shape):                                  # the same start as the other tabs
    return tf.Variable(rng.uniform(shape, -hp.init_scale, hp.init_scale))


class GRUClassifier(tf.Module):
    def __init__(self):
        super().__init__()
        embedding, hidden = hp.embedding_size, hp.hidden_size
        self.embedding = uniform(hp.vocabulary_size, embedding)
        # The three gates side by side, in the order r (reset), z (update), n (candidate).
        self.input_kernel = uniform(embedding, 3 * hidden)
        self.recurrent_kernel = uniform(hidden, 3 * hidden)
        self.input_bias = tf.Variable(tf.zeros(3 * hidden))
        self.recurrent_bias = tf.Variable(tf.zeros(3 * hidden))
        self.fc_kernel, self.fc_bias = uniform(hidden, 2), tf.Variable(tf.zeros(2))

    def cell(self, h, x):                             # x: this step's input product x W + b, all gates
        x_r, x_z, x_n = tf.split(x, 3, axis=-1)
        h_r, h_z, h_n = tf.split(h @ self.recurrent_kernel + self.recurrent_bias, 3, axis=-1)
        r = tf.sigmoid(x_r + h_r)
        z = tf.sigmoid(x_z + h_z)
        n = tf.tanh(x_n + r * h_n)                    # reset after the recurrent product: cuDNN's GRU, Keras' default
        return (1 - z) * n + z * h

    @tf.function                                      # one graph, whatever calls it
    def __call__(self, tokens):
        x = tf.nn.embedding_lookup(self.embedding, tf.transpose(tokens))   # time first: (T, N, embedding)
        x = x @ self.input_kernel + self.input_bias   # the input half of every step in one product
        h = tf.zeros((tf.shape(tokens)[0], hp.hidden_size))
        h = tf.foldl(self.cell, x, initializer=h)     # a while-loop over all 150 steps, padding included
        return h @ self.fc_kernel + self.fc_bias      # logits, from the hidden state after the last step


# [loss]
def loss_fn(logits, labels):                          # softmax inside, on logits; mean over the batch
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))


# [network]
model = GRUClassifier()
# [optimizer] TensorFlow 2 has no optimizer outside Keras (tf.keras.optimizers is Keras): Adam by hand, in the
# form of Kingma & Ba's paper (and Keras', MXNet's, Chainer's): the bias correction goes into the
# step size, lr·√(1−β₂ᵗ)/(1−β₁ᵗ), and ε is added to √v (PyTorch adds it to the corrected √v̂).
steps = tf.Variable(0.0, trainable=False)
moments = [(tf.Variable(tf.zeros_like(w), trainable=False), tf.Variable(tf.zeros_like(w), trainable=False))
           for w in model.trainable_variables]


# [loss, optimizer] one training step, traced into one graph: the loss, its gradients, the update
@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(model(x), y)
    gradients = tape.gradient(loss, model.trainable_variables)
    t = steps.assign_add(1.0)
    lr = hp.learning_rate * tf.sqrt(1 - hp.beta_2 ** t) / (1 - hp.beta_1 ** t)
    for w, (m, v), g in zip(model.trainable_variables, moments, gradients):
        # The embedding's gradient comes as rows, one per token in the batch (tf.IndexedSlices):
        # made dense, a word's repeated rows add up before they are squared, as in the other tabs.
        g = tf.convert_to_tensor(g)
        m.assign(hp.beta_1 * m + (1 - hp.beta_1) * g)
        v.assign(hp.beta_2 * v + (1 - hp.beta_2) * tf.square(g))
        w.assign_sub(lr * m / (tf.sqrt(v) + hp.epsilon))
    return loss


# [fused-kernel]
fused_kernel = "no (tf.nn has no GRU: a while-loop over the time steps)"
print(sum(w.shape.num_elements() for w in model.trainable_variables), "parameters; fused kernel:", fused_kernel)

# %% tags=["train"]
# [batches]
for epoch in range(hp.epochs):
    for x, y in batches:                              # shuffled again each time it is iterated
        # [training-step]
        loss = train_step(x, y)
    # [progress]
    print(f"epoch {epoch + 1}: last batch loss {float(loss):.3f}")   # float() also waits for the GPU

# %% tags=["infer"]
# [predictions]
predictions = tf.concat([tf.argmax(model(x), axis=1, output_type=tf.int32) for x in test_batches], axis=0)
# [accuracy]
accuracy = float(tf.reduce_mean(tf.cast(predictions == y_test, tf.float32)))
print(f"test accuracy {accuracy:.4f}")
report(accuracy=accuracy, train_samples=hp.epochs * (len(x_train) // hp.batch_size) * hp.batch_size,
       fused_kernel=fused_kernel)
