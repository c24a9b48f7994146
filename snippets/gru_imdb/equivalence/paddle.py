"""Neutral GRU classifier weights <-> the PaddlePaddle snippet's GRUClassifier.

nn.GRU stores weight_ih_l0 (3·hidden, inputs) and weight_hh_l0 (3·hidden, hidden) with the gates in the
neutral order r, z, n (PyTorch's layout): only a transpose. nn.Linear stores (inputs, outputs), as the
neutral form does.
"""
import numpy as np
import paddle

PAIRS = (  # neutral name, parameter path in the model, stored transposed?
    ("embedding", "embedding.weight", False),
    ("gru.input_kernel", "gru.weight_ih_l0", True),
    ("gru.recurrent_kernel", "gru.weight_hh_l0", True),
    ("gru.input_bias", "gru.bias_ih_l0", False),
    ("gru.recurrent_bias", "gru.bias_hh_l0", False),
    ("fc.kernel", "fc.weight", False),
    ("fc.bias", "fc.bias", False),
)


def load(ns, weights, x):
    parameters = dict(ns["model"].named_parameters())
    with paddle.no_grad():
        for name, path, transposed in PAIRS:
            value = weights[name].T if transposed else weights[name]
            parameters[path].set_value(np.ascontiguousarray(value))


def read(ns):
    parameters = dict(ns["model"].named_parameters())
    out = {}
    for name, path, transposed in PAIRS:
        value = parameters[path].numpy()
        out[name] = (value.T if transposed else value).copy()
    return out


def forward(ns, x):
    model = ns["model"]
    model.eval()
    with paddle.no_grad():
        logits = model(paddle.to_tensor(x, dtype="int64"))
    model.train()
    return logits.numpy()


def train_step(ns, x, y):
    # The body of the snippet's training loop.
    model, optimizer = ns["model"], ns["optimizer"]
    model.train()
    loss = ns["loss_fn"](model(paddle.to_tensor(x, dtype="int64")), paddle.to_tensor(y, dtype="int64"))
    loss.backward()
    optimizer.step()
    optimizer.clear_grad()
    return loss.item()
