// ---
// jupyter:
//   kernelspec:
//     display_name: 'Rosetta: TensorFlow.js'
//     language: javascript
//     name: rosetta-tensorflowjs
// ---

// %% [markdown]
// # GRU sentiment classifier on IMDB with TensorFlow.js
// The same classifier from `tf.variable`s and tensor operations, as the TensorFlow tab writes it:
// TensorFlow.js's GRU layer only computes the older form (reset gate before the recurrent product), so
// the cell's equations are written out and unrolled over the time steps; `tf.train.adam` optimises.

// %% tags=["setup"]
// [imports]
import * as tf from "npm:@tensorflow/tfjs@4.22.0";
import { load, report, settings } from "rosetta";

// [seeds]
const hp = settings("gru_imdb");
// No global seed: every random initial tensor takes its own (below); the shuffling uses Math.random,
// which cannot be seeded.
// [device]
// The pure-JavaScript CPU backend, as in the CNN's tab (the row's notes say why). Production mode skips
// the debug checks (and the hint about tfjs-node).
await tf.setBackend("cpu");
tf.enableProdMode();
console.log(`TensorFlow.js ${tf.version.tfjs} on Deno ${Deno.version.deno}, backend ${tf.getBackend()}: CPU, ` +
  `float32, profile ${hp.profile}`);

// %% tags=["data"]
const { xTrain, yTrain, xTest, yTest, shapes } = load(hp, "imdb");   // int32 token ids (N, 150), labels 1 = positive
const reviews = tf.tensor2d(xTrain, shapes.xTrain, "int32");
const labels = tf.tensor1d(yTrain, "int32");
const testReviews = tf.tensor2d(xTest, shapes.xTest, "int32");
console.log("train", shapes.xTrain, "test", shapes.xTest);

// %% tags=["model"]
// [network]
const [E, H] = [hp.embedding_size, hp.hidden_size];
let seed = hp.seed;
const uniform = (...shape) => tf.variable(tf.randomUniform(shape, -hp.init_scale, hp.init_scale, "float32", seed++));
const embedding = uniform(hp.vocabulary_size, E);
// The three gates side by side, in the order r (reset), z (update), n (candidate).
const inputKernel = uniform(E, 3 * H), recurrentKernel = uniform(H, 3 * H);
const inputBias = tf.variable(tf.zeros([3 * H])), recurrentBias = tf.variable(tf.zeros([3 * H]));
const fcKernel = uniform(H, 2), fcBias = tf.variable(tf.zeros([2]));

// tf.gather's gradient on the CPU backend is an unsortedSegmentSum that makes one masked pass over the
// batch for each of the 30,000 vocabulary rows: minutes per batch. The same gradient in one pass:
// scatterND adds up the rows of a word that occurs more than once, as the other frameworks' kernels do.
const lookup = tf.customGrad((table, ids, save) => {
  save([ids]);
  return {
    value: tf.gather(table, ids),
    gradFunc: (dy, [saved]) => [tf.scatterND(saved.reshape([-1, 1]), dy.reshape([-1, E]), table.shape),
                                tf.zerosLike(saved)],
  };
});

function cell(h, x) {                                        // x: this step's input product x W + b, all gates
  const [xR, xZ, xN] = tf.split(x, 3, -1);
  const [hR, hZ, hN] = tf.split(h.matMul(recurrentKernel).add(recurrentBias), 3, -1);
  const r = tf.sigmoid(xR.add(hR));
  const z = tf.sigmoid(xZ.add(hZ));
  const n = tf.tanh(xN.add(r.mul(hN)));                      // reset after the recurrent product: cuDNN's GRU
  return tf.sub(1, z).mul(n).add(z.mul(h));
}

function classify(tokens) {                                  // logits, from the hidden state after the last step
  const [N, T] = tokens.shape;
  const x = lookup(embedding, tokens.transpose())            // time first: (T, N, E)
    .reshape([T * N, E]).matMul(inputKernel).add(inputBias)  // the input half of every step in one product
    .reshape([T, N, 3 * H]);
  let h = tf.zeros([N, H]);
  for (const step of tf.unstack(x)) h = cell(h, step);       // all 150 steps, padding included
  return h.matMul(fcKernel).add(fcBias);
}

// [loss] softmax and cross-entropy in one, on the logits; one-hot labels; mean over the batch
const lossFn = (logits, y) => tf.losses.softmaxCrossEntropy(tf.oneHot(y, 2), logits);
// [optimizer] tf.train.adam adds ε to the bias-corrected √v̂, as PyTorch's Adam does.
const optimizer = tf.train.adam(hp.learning_rate, hp.beta_1, hp.beta_2, hp.epsilon);
// [fused-kernel]
const fusedKernel = "no (TensorFlow.js has no fused GRU: one small op after another, 150 steps)";
const weights = [embedding, inputKernel, recurrentKernel, inputBias, recurrentBias, fcKernel, fcBias];
console.log(weights.reduce((count, w) => count + w.size, 0), "parameters; fused kernel:", fusedKernel);

// %% tags=["train"]
// [batches]
const nBatches = Math.floor(yTrain.length / hp.batch_size);   // full batches only
let loss;
for (let epoch = 0; epoch < hp.epochs; epoch++) {
  const order = hp.shuffle ? tf.util.createShuffledIndices(yTrain.length) : Uint32Array.from(yTrain.keys());
  for (let b = 0; b < nBatches; b++) {
    const rows = tf.tensor1d(Int32Array.from(order.subarray(b * hp.batch_size, (b + 1) * hp.batch_size)), "int32");
    // [training-step] minimize(): the loss, its gradients on the tape, Adam's update; returns the loss
    loss?.dispose();
    loss = optimizer.minimize(() => lossFn(classify(tf.gather(reviews, rows)), tf.gather(labels, rows)), true);
    rows.dispose();
  }
  // [progress]
  console.log(`epoch ${epoch + 1}: last batch loss ${(await loss.data())[0].toFixed(3)}`);
}

// %% tags=["infer"]
// [predictions]
const predictions = [];
for (let start = 0; start < yTest.length; start += hp.batch_size) {
  const batch = tf.tidy(() => classify(testReviews.slice(start, hp.batch_size)).argMax(-1));
  predictions.push(...(await batch.data()));
  batch.dispose();
}
// [accuracy]
const accuracy = predictions.filter((label, n) => label === yTest[n]).length / yTest.length;
console.log(`test accuracy ${accuracy.toFixed(4)}`);
await report({ accuracy, train_samples: hp.epochs * nBatches * hp.batch_size, fused_kernel: fusedKernel });
