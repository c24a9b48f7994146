"""Neutral GRU classifier weights <-> the Gluon snippet's GRUClassifier.

rnn.GRU stores i2h_weight (3·hidden, inputs) and h2h_weight (3·hidden, hidden) with the gates
in the neutral order r, z, n (cuDNN's): only a transpose. Dense stores (outputs, inputs).
"""
import mxnet as mx
from mxnet import autograd

PAIRS = (  # neutral name, the parameter's attribute path in the snippet's model, stored transposed?
    ("embedding", "embedding.weight", False),
    ("gru.input_kernel", "gru.l0_i2h_weight", True),
    ("gru.recurrent_kernel", "gru.l0_h2h_weight", True),
    ("gru.input_bias", "gru.l0_i2h_bias", False),
    ("gru.recurrent_bias", "gru.l0_h2h_bias", False),
    ("fc.kernel", "fc.weight", True),
    ("fc.bias", "fc.bias", False),
)


def _parameters(model):
    """By attribute, not by Gluon's generated names: those count up with every model built (embedding0_,
    embedding1_, ...), and the checks build the snippet's model more than once."""
    found = {}
    for _, path, _ in PAIRS:
        owner, attribute = path.rsplit(".", 1)
        found[path] = getattr(getattr(model, owner), attribute)
    return found


def load(ns, weights, x):
    ns["model"](mx.nd.array(x[:1], ctx=ns["ctx"]))          # Gluon infers input sizes on the first call
    parameters = _parameters(ns["model"])
    for name, path, transposed in PAIRS:
        parameters[path].set_data(mx.nd.array(weights[name].T if transposed else weights[name]))


def read(ns):
    parameters = _parameters(ns["model"])
    out = {}
    for name, path, transposed in PAIRS:
        value = parameters[path].data().asnumpy()
        out[name] = value.T.copy() if transposed else value
    return out


def forward(ns, x):
    return ns["model"](mx.nd.array(x, ctx=ns["ctx"])).asnumpy()   # outside record(): inference mode


def train_step(ns, x, y):
    # The body of the snippet's training loop.
    x, y = mx.nd.array(x, ctx=ns["ctx"]), mx.nd.array(y, ctx=ns["ctx"])
    with autograd.record():
        loss = ns["loss_fn"](ns["model"](x), y)
    loss.backward()
    ns["trainer"].step(x.shape[0])
    return loss.mean().asscalar()
