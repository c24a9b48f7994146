"""Neutral GRU classifier weights <-> the Module snippet's parameters.

FusedRNNCell packs the GRU into one vector, gru_parameters: i2h weight (3·hidden, inputs),
h2h weight (3·hidden, hidden), i2h bias, h2h bias, each flattened, gates in the neutral order
r, z, n (cuDNN's; the cell calls n "_o"). The graph ends in SoftmaxOutput (probabilities): the
logits are read from the internal output of fc.
"""
import mxnet as mx
import numpy as np


def _packed(hp):
    """The parts of gru_parameters in order: neutral name, shape as stored (kernels transposed)."""
    gates = 3 * hp.hidden_size
    return (("gru.input_kernel", (gates, hp.embedding_size)), ("gru.recurrent_kernel", (gates, hp.hidden_size)),
            ("gru.input_bias", (gates,)), ("gru.recurrent_bias", (gates,)))


def load(ns, weights, x):
    parts = [weights[name].T if name.endswith("kernel") else weights[name] for name, _ in _packed(ns["hp"])]
    arg_params = {
        "embedding_weight": mx.nd.array(weights["embedding"]),
        "gru_parameters": mx.nd.array(np.concatenate([part.ravel() for part in parts])),
        "fc_weight": mx.nd.array(weights["fc.kernel"].T),
        "fc_bias": mx.nd.array(weights["fc.bias"]),
    }
    ns["mod"].set_params(arg_params, {})                 # every parameter given: none left missing


def read(ns):
    arg_params, _ = ns["mod"].get_params()
    out = {"embedding": arg_params["embedding_weight"].asnumpy(),
           "fc.kernel": arg_params["fc_weight"].asnumpy().T.copy(),
           "fc.bias": arg_params["fc_bias"].asnumpy()}
    packed, start = arg_params["gru_parameters"].asnumpy(), 0
    for name, shape in _packed(ns["hp"]):
        value = packed[start:start + int(np.prod(shape))].reshape(shape)
        out[name] = value.T.copy() if name.endswith("kernel") else value.copy()
        start += value.size
    assert start == packed.size, "gru_parameters holds more than one GRU layer"
    return out


def forward(ns, x):
    logits = ns["net"].get_internals()["fc_output"]
    arg_params, _ = ns["mod"].get_params()
    # eval() binds for inference at this batch's size.
    return logits.eval(ctx=ns["ctx"], data=mx.nd.array(x, ctx=ns["ctx"]), **arg_params)[0].asnumpy()


def train_step(ns, x, y):
    # The body of the snippet's training loop, on one batch.
    mod, loss = ns["mod"], ns["loss"]
    batch = mx.io.DataBatch(data=[mx.nd.array(x)], label=[mx.nd.array(y)])
    mod.forward_backward(batch)
    mod.update()
    loss.reset()
    mod.update_metric(loss, batch.label)
    return loss.get()[1]
