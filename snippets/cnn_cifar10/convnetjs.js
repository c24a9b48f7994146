// ---
// jupyter:
//   kernelspec:
//     display_name: 'Rosetta: ConvNetJS'
//     language: javascript
//     name: rosetta-convnetjs
// ---

// %% [markdown]
// # CNN on CIFAR-10 with ConvNetJS
// The same network as a ConvNetJS `Net` made from a list of layer definitions and trained with its
// `SGDTrainer`: plain JavaScript (run here by Deno), no tensors and no BLAS, one image at a time.

// %% tags=["setup"]
// [imports]
import convnetjs from "npm:convnetjs@0.3.0";
import { cifar10, report, settings } from "rosetta";

// [seeds]
const hp = settings("cnn_cifar10");
// Math.random cannot be seeded: a small seeded generator (mulberry32) draws the initial weights and
// each epoch's order. ConvNetJS's dropout masks still come from Math.random.
function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = mulberry32(hp.seed);
// [device]
console.log(`ConvNetJS 0.3.0 on Deno ${Deno.version.deno}, V8 ${Deno.version.v8}: CPU, one image at a time, ` +
  `channels last, profile ${hp.profile}`);

// %% tags=["data"]
// Channels last (N, 32, 32, 3): a ConvNetJS Vol stores an image as (y, x, channel), so one NHWC image
// is exactly a Vol's weights `.w` (a Float64Array: ConvNetJS computes in double precision).
const { xTrain, yTrain, xTest, yTest, trainShape, testShape } = cifar10.load(hp, { layout: "NHWC" });
const imageSize = 32 * 32 * 3;
function image(images, n) {                                  // the n-th image as a Vol (0.0: no random fill)
  const x = new convnetjs.Vol(32, 32, 3, 0.0);
  x.w.set(images.subarray(n * imageSize, (n + 1) * imageSize));
  return x;
}
console.log("train", trainShape, "test", testShape);

// %% tags=["model"]
// [network]
const layer_defs = [
  { type: "input", out_sx: 32, out_sy: 32, out_depth: 3 },
  { type: "conv", sx: 3, filters: 50, stride: 1, pad: 1, activation: "relu" },
  { type: "conv", sx: 3, filters: 50, stride: 1, pad: 1 },
  { type: "pool", sx: 2, stride: 2 },
  { type: "relu" },                                          // ReLU after pooling: same result, 4x cheaper
  { type: "dropout", drop_prob: hp.dropout_conv },
  { type: "conv", sx: 3, filters: 100, stride: 1, pad: 1, activation: "relu" },
  { type: "conv", sx: 3, filters: 100, stride: 1, pad: 1 },
  { type: "pool", sx: 2, stride: 2 },
  { type: "relu" },
  { type: "dropout", drop_prob: hp.dropout_conv },
  { type: "fc", num_neurons: 512, activation: "relu", drop_prob: hp.dropout_dense },   // flattens (y, x, c)
  // [loss]
  { type: "softmax", num_classes: 10 },   // adds the fc layer 512 -> 10 (the logits); the loss is its cross-entropy
];
// [network]
const net = new convnetjs.Net();
net.makeLayers(layer_defs);
// ConvNetJS draws kernels from a normal of std sqrt(1/fan_in) and starts the biases of ReLU layers at
// 0.1: set Glorot-uniform kernels and zero biases by hand. Each output unit's kernel is one Vol in
// `filters` (conv: (ky, kx, in_channel); fc: the flattened input).
for (const layer of net.layers.filter(({ layer_type }) => layer_type === "conv" || layer_type === "fc")) {
  const fanIn = layer.filters[0].w.length;
  const fanOut = layer.out_depth * (layer.layer_type === "conv" ? layer.sx * layer.sy : 1);
  const limit = Math.sqrt(6 / (fanIn + fanOut));
  for (const filter of layer.filters) {
    for (let i = 0; i < filter.w.length; i++) filter.w[i] = limit * (2 * random() - 1);
  }
  layer.biases.w.fill(0);
}
// [optimizer] ConvNetJS's momentum is the classic one: v = m*v - lr*g; w += v, with g the mean gradient of the
// batch_size images trained since the last update.
const trainer = new convnetjs.SGDTrainer(net, {
  learning_rate: hp.learning_rate, momentum: hp.momentum, batch_size: hp.batch_size, l2_decay: 0,
});
console.log(net.getParamsAndGrads().reduce((count, p) => count + p.params.length, 0), "parameters");

// %% tags=["train"]
// [batches]
// trainer.train() takes one image: forward (dropout on) and backward, adding to the gradients; every
// batch_size-th call updates the weights. ConvNetJS's dropout is the original kind: it drops without
// rescaling here and scales by the keep probability at test time (the other tabs rescale while training).
const nBatches = Math.floor(yTrain.length / hp.batch_size);   // full batches only
const order = Array.from(yTrain.keys());
let loss;
for (let epoch = 0; epoch < hp.epochs; epoch++) {
  if (hp.shuffle) {                                          // a new order each epoch (Fisher-Yates)
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
  }
  for (let b = 0; b < nBatches; b++) {
    loss = 0;
    for (const n of order.slice(b * hp.batch_size, (b + 1) * hp.batch_size)) {
      // [training-step]
      loss += trainer.train(image(xTrain, n), yTrain[n]).cost_loss / hp.batch_size;
    }
  }
  // [progress]
  console.log(`epoch ${epoch + 1}: last batch loss ${loss.toFixed(3)}`);
}

// %% tags=["infer"]
// [predictions] At test time ConvNetJS 0.3.0 multiplies by drop_prob where the keep probability 1 - drop_prob is meant
// (right only for 0.5; karpathy/convnetjs#61, never merged): give its dropout layers the keep probability.
for (const layer of net.layers.filter(({ layer_type }) => layer_type === "dropout")) {
  layer.drop_prob = 1 - layer.drop_prob;
}
let correct = 0;
for (let n = 0; n < yTest.length; n++) {
  net.forward(image(xTest, n));                              // is_training false: dropout only scales
  if (net.getPrediction() === yTest[n]) correct++;           // the class of the highest probability
}
// [accuracy]
const accuracy = correct / yTest.length;
console.log(`test accuracy ${accuracy.toFixed(4)}`);
await report({ accuracy, train_samples: hp.epochs * nBatches * hp.batch_size });
