"""Neutral GRU classifier weights <-> the Gluon snippet's GRUClassifier.

rnn.GRU stores i2h_weight (3·hidden, inputs) and h2h_weight (3·hidden, hidden) with the gates
in the neutral order r, z, n (cuDNN's): only a transpose. Dense stores (outputs, inputs).
"""
import mxnet as mx
from mxnet import autograd

PAIRS = (  # neutral name, parameter name suffix, stored transposed?
    ("embedding", "embedding0_weight", False),
    ("gru.input_kernel", "l0_i2h_weight", True),
    ("gru.recurrent_kernel", "l0_h2h_weight", True),
    ("gru.input_bias", "l0_i2h_bias", False),
    ("gru.recurrent_bias", "l0_h2h_bias", False),
    ("fc.kernel", "dense0_weight", True),
    ("fc.bias", "dense0_bias", False),
)


def _parameters(model):
    found = {}
    for suffix in (suffix for _, suffix, _ in PAIRS):
        matches = [p for key, p in model.collect_params().items() if key.endswith(suffix)]
        if len(matches) != 1:
            raise KeyError(f"expected one parameter ending in {suffix!r}, found {len(matches)}")
        found[suffix] = matches[0]
    return found


def load(ns, weights, x):
    ns["model"](mx.nd.array(x[:1], ctx=ns["ctx"]))          # Gluon infers input sizes on the first call
    parameters = _parameters(ns["model"])
    for name, suffix, transposed in PAIRS:
        parameters[suffix].set_data(mx.nd.array(weights[name].T if transposed else weights[name]))


def read(ns):
    parameters = _parameters(ns["model"])
    out = {}
    for name, suffix, transposed in PAIRS:
        value = parameters[suffix].data().asnumpy()
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
