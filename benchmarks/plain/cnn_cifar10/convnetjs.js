/**
 * Plain-script twin of snippets/cnn_cifar10/convnetjs.js: the same ConvNetJS CNN, its training loop timed,
 * run by `deno run` outside any kernel.
 */
import convnetjs from "npm:convnetjs@0.3.0";
import { cifar10, settings } from "rosetta";

const hp = settings("cnn_cifar10");
function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = mulberry32(hp.seed);

const { xTrain, yTrain } = cifar10.load(hp, { layout: "NHWC" });
const imageSize = 32 * 32 * 3;
function image(images, n) {
  const x = new convnetjs.Vol(32, 32, 3, 0.0);
  x.w.set(images.subarray(n * imageSize, (n + 1) * imageSize));
  return x;
}

const conv = (filters, activation) => ({ type: "conv", sx: 3, filters, stride: 1, pad: 1, activation });
const net = new convnetjs.Net();
net.makeLayers([
  { type: "input", out_sx: 32, out_sy: 32, out_depth: 3 },
  conv(50, "relu"), conv(50), { type: "pool", sx: 2, stride: 2 }, { type: "relu" },
  { type: "dropout", drop_prob: hp.dropout_conv },
  conv(100, "relu"), conv(100), { type: "pool", sx: 2, stride: 2 }, { type: "relu" },
  { type: "dropout", drop_prob: hp.dropout_conv },
  { type: "fc", num_neurons: 512, activation: "relu", drop_prob: hp.dropout_dense },
  { type: "softmax", num_classes: 10 },
]);
for (const layer of net.layers.filter(({ layer_type }) => layer_type === "conv" || layer_type === "fc")) {
  const fanIn = layer.filters[0].w.length;
  const fanOut = layer.out_depth * (layer.layer_type === "conv" ? layer.sx * layer.sy : 1);
  const limit = Math.sqrt(6 / (fanIn + fanOut));
  for (const filter of layer.filters) {
    for (let i = 0; i < filter.w.length; i++) filter.w[i] = limit * (2 * random() - 1);
  }
  layer.biases.w.fill(0);
}
const trainer = new convnetjs.SGDTrainer(net, {
  learning_rate: hp.learning_rate, momentum: hp.momentum, batch_size: hp.batch_size, l2_decay: 0,
});

const nBatches = Math.floor(yTrain.length / hp.batch_size);
const order = Array.from(yTrain.keys());
const started = performance.now();
for (let epoch = 0; epoch < hp.epochs; epoch++) {
  if (hp.shuffle) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
  }
  for (const n of order.slice(0, nBatches * hp.batch_size)) trainer.train(image(xTrain, n), yTrain[n]);
}
const seconds = (performance.now() - started) / 1000;     // ConvNetJS computes synchronously
console.log(JSON.stringify({ timed_seconds: seconds, samples: hp.epochs * nBatches * hp.batch_size }));
