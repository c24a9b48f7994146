// ---
// jupyter:
//   kernelspec:
//     display_name: 'Rosetta: TensorFlow.js'
//     language: javascript
//     name: rosetta-tensorflowjs
// ---

// %% [markdown]
// # CNN on CIFAR-10 with TensorFlow.js
// The same network with TensorFlow.js's layers API, Keras' design in JavaScript (run here by Deno):
// `tf.sequential`, `compile` and `fit`, on its pure-JavaScript CPU backend.

// %% tags=["setup"]
// [imports]
import * as tf from "npm:@tensorflow/tfjs@4.22.0";
import { cifar10, report, settings } from "rosetta";

// [seeds]
const hp = settings("cnn_cifar10");
// No global seed: each initialiser and dropout layer takes its own (below). fit()'s shuffling uses
// Math.random, which cannot be seeded.
// [device]
// The native binding (@tensorflow/tfjs-node) downloads TensorFlow's C library at install time, outside
// the package registries, and the WebAssembly backend has no gradient for a convolution's filter: the
// pure-JavaScript CPU backend it is. Production mode skips the debug checks (and the hint about tfjs-node).
await tf.setBackend("cpu");
tf.enableProdMode();
console.log(`TensorFlow.js ${tf.version.tfjs} on Deno ${Deno.version.deno}, backend ${tf.getBackend()}: CPU, ` +
  `float32, channels last, profile ${hp.profile}`);

// %% tags=["data"]
// Channels last (N, 32, 32, 3), the only layout of the CPU backend's 2-D convolutions.
const { xTrain, yTrain, xTest, yTest, trainShape, testShape } = cifar10.load(hp, { layout: "NHWC" });
const nTrain = Math.floor(yTrain.length / hp.batch_size) * hp.batch_size;   // full batches only
const images = tf.tensor4d(xTrain.subarray(0, nTrain * 32 * 32 * 3), [nTrain, 32, 32, 3]);
const labels = tf.oneHot(tf.tensor1d(yTrain.subarray(0, nTrain), "int32"), 10);   // the loss takes one-hot labels
const testImages = tf.tensor4d(xTest, testShape);
console.log("train", trainShape, "test", testShape);

// %% tags=["model"]
// [network]
// TensorFlow.js's default kernel initialiser is Glorot-normal (Keras': Glorot-uniform): asked for by name.
const glorot = (n) => tf.initializers.glorotUniform({ seed: hp.seed + n });
const model = tf.sequential({
  layers: [
    tf.layers.conv2d({ inputShape: [32, 32, 3], filters: 50, kernelSize: 3, padding: "same", activation: "relu",
      kernelInitializer: glorot(1) }),
    tf.layers.conv2d({ filters: 50, kernelSize: 3, padding: "same", kernelInitializer: glorot(2) }),
    tf.layers.maxPooling2d({ poolSize: 2 }),
    tf.layers.activation({ activation: "relu" }),            // ReLU after pooling: same result, 4x cheaper
    tf.layers.dropout({ rate: hp.dropout_conv, seed: hp.seed + 1 }),
    tf.layers.conv2d({ filters: 100, kernelSize: 3, padding: "same", activation: "relu",
      kernelInitializer: glorot(3) }),
    tf.layers.conv2d({ filters: 100, kernelSize: 3, padding: "same", kernelInitializer: glorot(4) }),
    tf.layers.maxPooling2d({ poolSize: 2 }),
    tf.layers.activation({ activation: "relu" }),
    tf.layers.dropout({ rate: hp.dropout_conv, seed: hp.seed + 2 }),
    tf.layers.flatten(),                                     // (h, w, c) order
    tf.layers.dense({ units: 512, activation: "relu", kernelInitializer: glorot(5) }),
    tf.layers.dropout({ rate: hp.dropout_dense, seed: hp.seed + 3 }),
    tf.layers.dense({ units: 10, kernelInitializer: glorot(6) }),   // logits
  ],
});
model.compile({
  // [optimizer] tf.train.momentum keeps PyTorch's form: v = m*v + g; w -= lr*v.
  optimizer: tf.train.momentum(hp.learning_rate, hp.momentum),
  // [loss] Softmax and cross-entropy in one, on the logits (TensorFlow.js's losses have no from_logits flag;
  // this one takes one-hot labels), averaged over the batch.
  loss: (oneHot, logits) => tf.losses.softmaxCrossEntropy(oneHot, logits),
});
console.log(model.countParams(), "parameters");

// %% tags=["train"]
// [batches, training-step]
// fit() shuffles every epoch and runs one forward and backward pass per batch, op by op (no graph). On
// this backend a convolution's filter gradient is the slow part: ~100x its forward pass (see the row's notes).
const history = await model.fit(images, labels, {
  batchSize: hp.batch_size, epochs: hp.epochs, shuffle: hp.shuffle, verbose: 0,
});
// [progress]
history.history.loss.forEach((loss, epoch) => console.log(`epoch ${epoch + 1}: mean loss ${loss.toFixed(3)}`));

// %% tags=["infer"]
// [predictions] predict() runs the layers in inference mode (dropout off).
const predictions = tf.tidy(() => model.predict(testImages, { batchSize: hp.batch_size }).argMax(-1));
// [accuracy]
const correct = tf.tidy(() => predictions.equal(tf.tensor1d(yTest, "int32")).sum());
const accuracy = (await correct.data())[0] / yTest.length;
console.log(`test accuracy ${accuracy.toFixed(4)}`);
await report({ accuracy, train_samples: hp.epochs * nTrain });
