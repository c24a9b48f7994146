/**
 * Runs inside a JavaScript row's environment (its Deno): the equivalence check's worker, as
 * rosetta/equivalence_worker.py is for the Python rows, with the same job and the same output.
 *
 *     deno run --allow-all --config <run_dir>/deno.json rosetta/js/equivalence_worker.ts JOB_DIR
 *
 * JOB_DIR holds job.json (the snippet's steps before the timed one, the timed step when it trains, the
 * adapter's path) and, as raw files with an index (rosetta/build/js_worker.py writes them from the .npz
 * files), the neutral initial weights and batches. The snippet's steps run as a module of their own
 * (JavaScript has no exec into a namespace): the adapter names the top-level bindings it needs (`uses`),
 * which the module hands over, then the neutral weights are loaded; for the timed cell a second module
 * runs the same steps, loads the same weights and runs the cell exactly as the reader sees it.
 *
 * An adapter module exports `uses` (names) and, over that namespace `ns`:
 *     load(ns, weights, x)      neutral weights -> the snippet's model
 *     read(ns) -> weights       the model's current weights, neutral again ({name: tensor})
 *     forward(ns, x) -> logits  inference mode, a float32 tensor
 *     trainStep(ns, x, y)       one step of the snippet's optimizer on its loss; returns the loss (a number)
 * and may export facts(ns) -> {label: value}. Neutral arrays come as {data, shape, dtype} (typed arrays);
 * what it returns is anything with `shape` and an async `data()` (a tensor).
 */

type Neutral = { data: Float32Array | Float64Array | Int32Array | Uint8Array; shape: number[]; dtype: string };
type Tensorish = { shape: number[]; dtype?: string; data(): Promise<ArrayLike<number>> };

const TYPED = { float32: Float32Array, float64: Float64Array, int32: Int32Array, uint8: Uint8Array };
const fileUrl = (path: string) => new URL(`file://${Deno.realPathSync(path)}`).href;

function readRaw(folder: string): Record<string, Neutral> {
  const index = JSON.parse(Deno.readTextFileSync(`${folder}/index.json`)).arrays;
  const arrays: Record<string, Neutral> = {};
  for (const [name, { file, shape, dtype }] of Object.entries(index) as [string, Neutral & { file: string }][]) {
    const bytes = Deno.readFileSync(`${folder}/${file}`).slice();      // (a fresh, aligned buffer)
    const Typed = TYPED[dtype as keyof typeof TYPED];
    arrays[name] = { data: new Typed(bytes.buffer), shape, dtype };
  }
  return arrays;
}

async function writeRaw(folder: string, arrays: Record<string, Tensorish | Neutral>) {
  Deno.mkdirSync(folder, { recursive: true });
  const index: Record<string, unknown> = {};
  let n = 0;
  for (const [name, array] of Object.entries(arrays)) {
    const values = typeof array.data === "function" ? await (array as Tensorish).data() : (array as Neutral).data;
    const dtype = values instanceof Float64Array ? "float64" : values instanceof Int32Array ? "int32" : "float32";
    const typed = values instanceof TYPED[dtype] ? values : TYPED[dtype].from(values as ArrayLike<number>);
    Deno.writeFileSync(`${folder}/${n}.bin`, new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength));
    index[name] = { file: `${n++}.bin`, shape: array.shape, dtype };
  }
  Deno.writeTextFileSync(`${folder}/index.json`, JSON.stringify({ arrays: index }));
}

/** The values now (a variable read later would give its later values). */
async function snapshot(arrays: Record<string, Tensorish>): Promise<Record<string, Neutral>> {
  const values: Record<string, Neutral> = {};
  for (const [name, array] of Object.entries(arrays)) {
    const data = Float32Array.from(await array.data());
    values[name] = { data, shape: array.shape, dtype: "float32" };
  }
  return values;
}

/** The i-th entry along the first axis (one step's batch). */
function entry(array: Neutral, i: number): Neutral {
  const size = array.shape.slice(1).reduce((a, b) => a * b, 1);
  return { data: array.data.subarray(i * size, (i + 1) * size), shape: array.shape.slice(1), dtype: array.dtype };
}

function firstRows(array: Neutral, rows: number): Neutral {
  const size = array.shape.slice(1).reduce((a, b) => a * b, 1);
  return { data: array.data.subarray(0, rows * size), shape: [rows, ...array.shape.slice(1)], dtype: array.dtype };
}

const jobDir = Deno.args[0];
const job = JSON.parse(Deno.readTextFileSync(`${jobDir}/job.json`));
const weights = readRaw(`${jobDir}/raw/weights`);
const data = readRaw(`${jobDir}/raw/batches`);
const started = performance.now();
const adapter = await import(fileUrl(job.adapter));
const hooks = globalThis as unknown as { rosettaPrepared: (ns: Record<string, unknown>) => Promise<void> };
let prepared: Record<string, unknown> = {};
hooks.rosettaPrepared = async (ns) => {
  await adapter.load(ns, weights, data.forward_x);
  prepared = ns;
};

/** A fresh namespace: the snippet's steps (and a note's change), the neutral weights loaded, then `after`. */
async function run(tag: string, after = ""): Promise<Record<string, unknown>> {
  const path = `${jobDir}/${tag}.js`;
  Deno.writeTextFileSync(path, `${job.code}\n\n// --- the check: the adapter's names, then the neutral weights\n` +
    `await globalThis.rosettaPrepared({ ${adapter.uses.join(", ")} });\n\n${after}\n`);
  await import(fileUrl(path));
  return prepared;
}

let ns = await run("steps");
const back = await snapshot(await adapter.read(ns));
const out: Record<string, Tensorish | Neutral> = {
  logits: await adapter.forward(ns, data.forward_x),
  alone: await adapter.forward(ns, firstRows(data.forward_x, 1)),
};
const losses = [];
for (let i = 0; i < data.train_x.shape[0]; i++) {
  losses.push(Number(await adapter.trainStep(ns, entry(data.train_x, i), entry(data.train_y, i))));
}
out.losses = { data: Float64Array.from(losses), shape: [losses.length], dtype: "float64" };
const final = await snapshot(await adapter.read(ns));
const facts = adapter.facts ? await adapter.facts(ns) : {};
if (job.train_code) {
  // The timed cell exactly as the reader sees it, from the same starting weights, in a fresh module (a fresh
  // optimizer): it must end where the adapter's steps ended.
  ns = await run("cell", job.train_code);
  for (const [name, value] of Object.entries(await snapshot(await adapter.read(ns)))) out[`cell/${name}`] = value;
}
Deno.writeTextFileSync(`${jobDir}/facts.json`, JSON.stringify(facts));
out.seconds = { data: Float64Array.of((performance.now() - started) / 1000), shape: [], dtype: "float64" };
for (const [name, value] of Object.entries(back)) out[`roundtrip/${name}`] = value;
for (const [name, value] of Object.entries(final)) out[`final/${name}`] = value;
await writeRaw(`${jobDir}/raw/out`, out);
