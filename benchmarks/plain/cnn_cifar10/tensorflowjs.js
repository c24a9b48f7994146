/**
 * Plain-script twin of snippets/cnn_cifar10/tensorflowjs.js: the same TensorFlow.js CNN, its model.fit timed,
 * run by `deno run` outside any kernel.
 */
import * as tf from "npm:@tensorflow/tfjs@4.22.0";
import { cifar10, settings } from "rosetta";

const hp = settings("cnn_cifar10");
await tf.setBackend("cpu");
tf.enableProdMode();

const { xTrain, yTrain } = cifar10.load(hp, { layout: "NHWC" });
const nTrain = Math.floor(yTrain.length / hp.batch_size) * hp.batch_size;   // full batches only
const images = tf.tensor4d(xTrain.subarray(0, nTrain * 32 * 32 * 3), [nTrain, 32, 32, 3]);
const labels = tf.oneHot(tf.tensor1d(yTrain.subarray(0, nTrain), "int32"), 10);

const glorot = (n) => tf.initializers.glorotUniform({ seed: hp.seed + n });
const conv = (filters, n, options = {}) =>
  tf.layers.conv2d({ filters, kernelSize: 3, padding: "same", kernelInitializer: glorot(n), ...options });
const model = tf.sequential({
  layers: [
    conv(50, 1, { inputShape: [32, 32, 3], activation: "relu" }), conv(50, 2), tf.layers.maxPooling2d({ poolSize: 2 }),
    tf.layers.activation({ activation: "relu" }), tf.layers.dropout({ rate: hp.dropout_conv, seed: hp.seed + 1 }),
    conv(100, 3, { activation: "relu" }), conv(100, 4), tf.layers.maxPooling2d({ poolSize: 2 }),
    tf.layers.activation({ activation: "relu" }), tf.layers.dropout({ rate: hp.dropout_conv, seed: hp.seed + 2 }),
    tf.layers.flatten(),
    tf.layers.dense({ units: 512, activation: "relu", kernelInitializer: glorot(5) }),
    tf.layers.dropout({ rate: hp.dropout_dense, seed: hp.seed + 3 }),
    tf.layers.dense({ units: 10, kernelInitializer: glorot(6) }),
  ],
});
model.compile({
  optimizer: tf.train.momentum(hp.learning_rate, hp.momentum),
  loss: (oneHot, logits) => tf.losses.softmaxCrossEntropy(oneHot, logits),
});

const started = performance.now();
await model.fit(images, labels, { batchSize: hp.batch_size, epochs: hp.epochs, shuffle: hp.shuffle, verbose: 0 });
const seconds = (performance.now() - started) / 1000;     // fit() resolves when the last step has finished
console.log(JSON.stringify({ timed_seconds: seconds, samples: hp.epochs * nTrain }));
