# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: MXNet'
#     language: python
#     name: rosetta-mxnet
# ---

# %% [markdown]
# # A convolution and its two gradients, in MXNet

# %% tags=["setup"]
import mxnet as mx

from rosetta import lesson

hp = lesson.settings("convolution_gradients")
mx.random.seed(hp.seed)
ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
shape = (hp.batch_size, hp.channels, hp.size, hp.size)              # channels first: MXNet's default
images = mx.nd.random.normal(shape=shape, ctx=ctx)
kernel = mx.nd.random.normal(shape=(hp.channels, hp.channels, 3, 3), ctx=ctx)   # (out, in, height, width)
output_gradient = mx.nd.random.normal(shape=shape, ctx=ctx)          # what the layer above hands back

# The convolution as a symbol: the graph that a hybridized Gluon block (and Module) runs.
convolution = mx.sym.Convolution(mx.sym.var("data"), mx.sym.var("weight"), kernel=(3, 3), pad=(1, 1),
                                 num_filter=hp.channels, no_bias=True)


def bound(grad_req):
    """The convolution bound to the arrays, with the gradients `grad_req` asks for ("null": none)."""
    executor = convolution.bind(ctx, {"data": images, "weight": kernel}, grad_req=grad_req,
                                 args_grad={"data": images.zeros_like(), "weight": kernel.zeros_like()})
    executor.forward(is_train=True)                      # backward reads the inputs this pass recorded
    return executor


# %% tags=["variants"]
# One executor per part: grad_req "null" for a gradient makes the backward pass skip it, so each
# backward computes the one gradient asked for (oneDNN's backward-data or backward-weights kernel).
forward_only = bound("null")
input_only = bound({"data": "write", "weight": "null"})
kernel_only = bound({"data": "null", "weight": "write"})

parts = {"forward": lambda: forward_only.forward(is_train=False)[0],
         "input_gradient": lambda: input_only.backward(output_gradient) or input_only.grad_dict["data"],
         "kernel_gradient": lambda: kernel_only.backward(output_gradient) or kernel_only.grad_dict["weight"]}


def repeated(part):
    def call():
        for _ in range(hp.calls):
            out = part()
        out.sum().asscalar()                             # MXNet is asynchronous: wait for the queued work
    return call


print({name: part().shape for name, part in parts.items()})

# %% tags=["measure"]
lesson.compare(hp, {name: repeated(part) for name, part in parts.items()})
