// Neutral CNN weights <-> the TensorFlow.js snippet's tf.sequential model.
//
// TensorFlow.js stores what Keras stores: conv kernels (h, w, in, out), dense kernels (in, out), and its
// Flatten orders fc1's inputs (h, w, c) instead of the neutral (c, h, w), so fc1's rows are permuted. Its
// images are channels last.
import * as tf from "npm:@tensorflow/tfjs@4.22.0";

// The snippet's top-level names this adapter reads (rosetta/js/equivalence_worker.ts hands them over).
export const uses = ["model"];

const NAMES = ["conv1", "conv2", "conv3", "conv4", "fc1", "fc2"];

/** The layers with weights (the four conv2d and the two dense), in order, by their neutral names. */
function layers(model) {
  const weighted = model.layers.filter((layer) => layer.weights.length > 0);
  return NAMES.map((name, i) => [name, weighted[i]]);
}

const tensor = ({ data, shape, dtype }) => tf.tensor(data, shape, dtype);

// fc1's rows: neutral (c, h, w) order <-> TensorFlow.js's (h, w, c), for its 100 x 8 x 8 inputs.
const rowsHWC = (kernel) => kernel.reshape([100, 8, 8, 512]).transpose([1, 2, 0, 3]).reshape([6400, 512]);
const rowsCHW = (kernel) => kernel.reshape([8, 8, 100, 512]).transpose([2, 0, 1, 3]).reshape([6400, 512]);

export function load(ns, weights) {
  for (const [name, layer] of layers(ns.model)) {
    const [kernel, bias] = tf.tidy(() => {
      const neutral = tensor(weights[`${name}.kernel`]);
      const own = name.startsWith("conv") ? neutral.transpose([2, 3, 1, 0])   // (out, in, h, w) -> (h, w, in, out)
        : name === "fc1" ? rowsHWC(neutral) : neutral;
      return [own, tensor(weights[`${name}.bias`])];
    });
    layer.setWeights([kernel, bias]);
    tf.dispose([kernel, bias]);
  }
}

export function read(ns) {
  const out = {};
  for (const [name, layer] of layers(ns.model)) {
    const [kernel, bias] = layer.getWeights();
    out[`${name}.kernel`] = name.startsWith("conv") ? kernel.transpose([3, 2, 0, 1])
      : name === "fc1" ? rowsCHW(kernel) : kernel;
    out[`${name}.bias`] = bias;
  }
  return out;
}

const images = (x) => tensor(x).transpose([0, 2, 3, 1]);    // neutral (N, C, H, W) -> channels last

export function forward(ns, x) {
  // predict() runs the layers in inference mode, as the snippet's infer step does.
  return tf.tidy(() => ns.model.predict(images(x)));
}

export async function trainStep(ns, x, y) {
  // fit() runs this same step on every batch: the compiled loss on one-hot labels, then the optimizer.
  const [xs, ys] = tf.tidy(() => [images(x), tf.oneHot(tensor(y), 10)]);
  const loss = await ns.model.trainOnBatch(xs, ys);
  tf.dispose([xs, ys]);
  return loss;
}
