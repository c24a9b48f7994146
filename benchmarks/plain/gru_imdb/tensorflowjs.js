/**
 * Plain-script twin of snippets/gru_imdb/tensorflowjs.js: the same GRU written out in TensorFlow.js, its
 * training loop timed, run by `deno run` outside any kernel.
 */
import * as tf from "npm:@tensorflow/tfjs@4.22.0";
import { load, settings } from "rosetta";

const hp = settings("gru_imdb");
await tf.setBackend("cpu");
tf.enableProdMode();

const { xTrain, yTrain, shapes } = load(hp, "imdb");
const reviews = tf.tensor2d(xTrain, shapes.xTrain, "int32");
const labels = tf.tensor1d(yTrain, "int32");

const [E, H] = [hp.embedding_size, hp.hidden_size];
let seed = hp.seed;
const uniform = (...shape) => tf.variable(tf.randomUniform(shape, -hp.init_scale, hp.init_scale, "float32", seed++));
const embedding = uniform(hp.vocabulary_size, E);
const inputKernel = uniform(E, 3 * H), recurrentKernel = uniform(H, 3 * H);
const inputBias = tf.variable(tf.zeros([3 * H])), recurrentBias = tf.variable(tf.zeros([3 * H]));
const fcKernel = uniform(H, 2), fcBias = tf.variable(tf.zeros([2]));

// tf.gather's gradient through one scatterND, as the tab takes it (the tab says why).
const lookup = tf.customGrad((table, ids, save) => {
  save([ids]);
  return {
    value: tf.gather(table, ids),
    gradFunc: (dy, [saved]) => [tf.scatterND(saved.reshape([-1, 1]), dy.reshape([-1, E]), table.shape),
                                tf.zerosLike(saved)],
  };
});

function cell(h, x) {
  const [xR, xZ, xN] = tf.split(x, 3, -1);
  const [hR, hZ, hN] = tf.split(h.matMul(recurrentKernel).add(recurrentBias), 3, -1);
  const r = tf.sigmoid(xR.add(hR));
  const z = tf.sigmoid(xZ.add(hZ));
  const n = tf.tanh(xN.add(r.mul(hN)));
  return tf.sub(1, z).mul(n).add(z.mul(h));
}

function classify(tokens) {
  const [N, T] = tokens.shape;
  const x = lookup(embedding, tokens.transpose()).reshape([T * N, E]).matMul(inputKernel).add(inputBias)
    .reshape([T, N, 3 * H]);
  let h = tf.zeros([N, H]);
  for (const step of tf.unstack(x)) h = cell(h, step);
  return h.matMul(fcKernel).add(fcBias);
}

const lossFn = (logits, y) => tf.losses.softmaxCrossEntropy(tf.oneHot(y, 2), logits);
const optimizer = tf.train.adam(hp.learning_rate, hp.beta_1, hp.beta_2, hp.epsilon);

const nBatches = Math.floor(yTrain.length / hp.batch_size);
const started = performance.now();
let loss;
for (let epoch = 0; epoch < hp.epochs; epoch++) {
  const order = hp.shuffle ? tf.util.createShuffledIndices(yTrain.length) : Uint32Array.from(yTrain.keys());
  for (let b = 0; b < nBatches; b++) {
    const rows = tf.tensor1d(Int32Array.from(order.subarray(b * hp.batch_size, (b + 1) * hp.batch_size)), "int32");
    loss?.dispose();
    loss = optimizer.minimize(() => lossFn(classify(tf.gather(reviews, rows)), tf.gather(labels, rows)), true);
    rows.dispose();
  }
  await loss.data();                                         // the epoch's last step has finished
}
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ timed_seconds: seconds, samples: hp.epochs * nBatches * hp.batch_size }));
