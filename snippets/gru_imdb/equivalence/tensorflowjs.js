// Neutral GRU classifier weights <-> the TensorFlow.js snippet's variables.
//
// The snippet keeps every tensor in the neutral layout already, as the TensorFlow tab does: kernels
// (inputs, outputs), gates r, z, n, reset after the recurrent product.
import * as tf from "npm:@tensorflow/tfjs@4.22.0";

// The snippet's top-level names this adapter reads (rosetta/js/equivalence_worker.ts hands them over).
export const uses = ["embedding", "inputKernel", "recurrentKernel", "inputBias", "recurrentBias", "fcKernel", "fcBias",
  "classify", "lossFn", "optimizer"];

const PAIRS = [  // neutral name, the snippet's variable
  ["embedding", "embedding"],
  ["gru.input_kernel", "inputKernel"],
  ["gru.recurrent_kernel", "recurrentKernel"],
  ["gru.input_bias", "inputBias"],
  ["gru.recurrent_bias", "recurrentBias"],
  ["fc.kernel", "fcKernel"],
  ["fc.bias", "fcBias"],
];

const tensor = ({ data, shape, dtype }) => tf.tensor(data, shape, dtype);

export function load(ns, weights) {
  for (const [name, variable] of PAIRS) ns[variable].assign(tensor(weights[name]));
}

export function read(ns) {
  return Object.fromEntries(PAIRS.map(([name, variable]) => [name, ns[variable]]));
}

export function forward(ns, x) {
  return tf.tidy(() => ns.classify(tensor(x)));
}

export async function trainStep(ns, x, y) {
  // The body of the snippet's training loop: minimize() on its loss.
  const loss = ns.optimizer.minimize(() => ns.lossFn(ns.classify(tensor(x)), tensor(y)), true);
  const value = (await loss.data())[0];
  loss.dispose();
  return value;
}
