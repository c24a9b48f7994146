# ---
# jupyter:
#   kernelspec:
#     display_name: 'Rosetta: Theano'
#     language: python
#     name: rosetta-theano
# ---

# %% [markdown]
# # A convolution and its two gradients, in Theano

# %% tags=["setup"]
import numpy as np
import theano
import theano.tensor as T

from rosetta import lesson

hp = lesson.settings("convolution_gradients")
floatX = theano.config.floatX                            # float32, set in THEANO_FLAGS
rng = np.random.default_rng(hp.seed)
shape = (hp.batch_size, hp.channels, hp.size, hp.size)  # channels first: Theano's conv2d layout
# Shared variables: Theano's own arrays, so that no call copies its inputs in.
images = theano.shared(rng.standard_normal(shape, dtype=np.float32).astype(floatX))
kernel = theano.shared(rng.standard_normal((hp.channels, hp.channels, 3, 3), dtype=np.float32).astype(floatX))
output_gradient = theano.shared(rng.standard_normal(shape, dtype=np.float32).astype(floatX))

# %% tags=["variants"]
# The convolution as the CNN tab writes it; each gradient from T.grad given the output's gradient
# (known_grads). Each is compiled on its own, and Theano's optimizer keeps only what its output needs:
# a gradient of a convolution needs the other operand, not the forward output.
output = T.nnet.conv2d(images, kernel, border_mode="half", filter_flip=False)
graphs = {"forward": output,
          "input_gradient": T.grad(None, images, known_grads={output: output_gradient}),
          "kernel_gradient": T.grad(None, kernel, known_grads={output: output_gradient})}
parts = {}
for name, graph in graphs.items():
    # The result goes into a shared variable (updates=): a returned array would be copied out at every call.
    result = theano.shared(np.zeros([1] * graph.ndim, floatX))
    parts[name] = theano.function([], [], updates=[(result, graph)])
    print(name, [node.op for node in parts[name].maker.fgraph.toposort() if "Corr" in str(node.op)])


def repeated(part):
    def call():
        for _ in range(hp.calls):
            part()                                       # on a CPU, a Theano call returns when it has run
    return call


# %% tags=["measure"]
lesson.compare(hp, {name: repeated(part) for name, part in parts.items()})
