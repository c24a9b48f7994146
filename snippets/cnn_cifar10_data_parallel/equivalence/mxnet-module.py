"""Neutral CNN weights <-> the data-parallel Module snippet's parameters (conv*_weight (out, in, h, w);
fc*_weight (out, in)), trained through a dist_sync kvstore.

Every worker sets the same weights before the first step (each updates its own copy: the server only sums the
gradients). A training step gives each worker its rows of the batch, as the snippet's train cell deals them; every
worker pulls the sum of the workers' gradients and takes the same step.
The graph ends in SoftmaxOutput: the logits are read from fc2's internal output."""
import mxnet as mx
import numpy as np

LAYERS = ("conv1", "conv2", "conv3", "conv4", "fc1", "fc2")


def load(ns, weights, x):
    arg_params = {}
    for name in LAYERS:
        kernel = weights[f"{name}.kernel"]
        arg_params[f"{name}_weight"] = mx.nd.array(kernel.T if name.startswith("fc") else kernel)
        arg_params[f"{name}_bias"] = mx.nd.array(weights[f"{name}.bias"])
    ns["mod"].set_params(arg_params, {})


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
    return logits.eval(ctx=ns["ctx"], data=mx.nd.array(x, ctx=ns["ctx"]), **arg_params)[0].asnumpy()


def train_step(ns, x, y):
    # The body of the snippet's training loop, on this worker's rows of the batch.
    rank, workers = ns["rank"], ns["workers"]
    # The whole batch's loss before the step (the same weights in every worker; dropout off in the checks).
    logits = forward(ns, x).astype(np.float64)
    logits -= logits.max(axis=1, keepdims=True)
    batch_loss = float(np.mean(np.log(np.exp(logits).sum(axis=1)) - logits[np.arange(len(y)), y.astype(int)]))
    batch = mx.io.DataBatch(data=[mx.nd.array(x[rank::workers])], label=[mx.nd.array(y[rank::workers])])
    ns["mod"].forward_backward(batch)
    ns["mod"].update()
    return batch_loss
