"""Neutral GRU classifier weights <-> the TensorFlow snippet's GRUClassifier (a tf.Module).

The snippet keeps every tensor in the neutral layout already: kernels (inputs, outputs), gates r, z, n.
"""
import tensorflow as tf

PAIRS = (  # neutral name, the variable's attribute in the snippet's model
    ("embedding", "embedding"),
    ("gru.input_kernel", "input_kernel"),
    ("gru.recurrent_kernel", "recurrent_kernel"),
    ("gru.input_bias", "input_bias"),
    ("gru.recurrent_bias", "recurrent_bias"),
    ("fc.kernel", "fc_kernel"),
    ("fc.bias", "fc_bias"),
)


def load(ns, weights, x):
    for name, attribute in PAIRS:
        getattr(ns["model"], attribute).assign(weights[name])


def read(ns):
    return {name: getattr(ns["model"], attribute).numpy() for name, attribute in PAIRS}


def forward(ns, x):
    return ns["model"](tf.constant(x)).numpy()


def train_step(ns, x, y):
    # The snippet's compiled step, which its train cell runs on every batch.
    return float(ns["train_step"](tf.constant(x), tf.constant(y)))
