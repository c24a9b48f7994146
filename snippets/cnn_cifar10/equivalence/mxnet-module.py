"""Neutral CNN weights <-> the Module snippet's parameters (conv*_weight (out, in, h, w); fc*_weight (out, in)).

The graph ends in SoftmaxOutput, whose output is probabilities: the logits are read from the
internal output of fc2, evaluated with the Module's current parameters.
"""
import mxnet as mx

LAYERS = ("conv1", "conv2", "conv3", "conv4", "fc1", "fc2")


def load(ns, weights, x):
    arg_params = {}
    for name in LAYERS:
        kernel = weights[f"{name}.kernel"]
        arg_params[f"{name}_weight"] = mx.nd.array(kernel.T if name.startswith("fc") else kernel)
        arg_params[f"{name}_bias"] = mx.nd.array(weights[f"{name}.bias"])
    ns["mod"].set_params(arg_params, {})                 # every parameter given: none left missing


def read(ns):
    arg_params, _ = ns["mod"].get_params()
    out = {}
    for name in LAYERS:
        kernel = arg_params[f"{name}_weight"].asnumpy()
        out[f"{name}.kernel"] = kernel.T.copy() if name.startswith("fc") else kernel
        out[f"{name}.bias"] = arg_params[f"{name}_bias"].asnumpy()
    return out


def forward(ns, x):
    logits = ns["net"].get_internals()["fc2_output"]
    arg_params, _ = ns["mod"].get_params()
    # eval() binds for inference (is_train=False: dropout off) at this batch's size.
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
