/**
 * What a JavaScript snippet imports (`import { cifar10, report, settings } from "rosetta";`): the
 * JavaScript side of rosetta/settings.py, rosetta/report.py and rosetta/data/, for rows written in
 * JavaScript (ConvNetJS) that run in Deno's Jupyter kernel.
 *
 * Nothing is computed twice: settings and data come from the Python side, `python -m rosetta.bridge`,
 * run by ROSETTA_PYTHON_BRIDGE (the row's environment sets it; by hand it defaults to the `python`
 * beside the `deno` that runs this), so a JavaScript tab gets the same hyper-parameters, the same
 * profile sizes and the same images in the same order as the Python tabs. The provenance notes that
 * Python's loaders record (data source, weights) travel back and go out with `report()`, exactly as
 * Python's report() sends them.
 */

export const MIME_TYPE = "application/vnd.rosetta.report+json";

/** The provenance notes of this run (what Python's `rosetta.report.note()` records), sent by report(). */
const context: Record<string, unknown> = {};

function bridgePython(): string {
  const configured = Deno.env.get("ROSETTA_PYTHON_BRIDGE");
  if (configured) return configured;
  return Deno.execPath().replace(/deno$/, "python");   // {venv}/bin/deno -> {venv}/bin/python
}

/** Run `python -m rosetta.bridge ARGS...` and return its standard output as JSON. */
function bridge(...args: string[]): { context?: Record<string, unknown>; [key: string]: unknown } {
  const python = bridgePython();
  let done: Deno.CommandOutput;
  try {
    done = new Deno.Command(python, { args: ["-m", "rosetta.bridge", ...args], stdout: "piped", stderr: "piped" })
      .outputSync();
  } catch (error) {
    throw new Error(`cannot run ${python} (set ROSETTA_PYTHON_BRIDGE to the Python that has rosetta): ${error}`);
  }
  if (!done.success) {
    const lines = new TextDecoder().decode(done.stderr).trim().split("\n");
    // The Python exception's own last line says what went wrong (e.g. which data set to provide).
    throw new Error(`python -m rosetta.bridge ${args.join(" ")} failed: ${lines.at(-1)}\n${lines.join("\n")}`);
  }
  const answer = JSON.parse(new TextDecoder().decode(done.stdout));
  Object.assign(context, answer.context ?? {});
  return answer;
}

/** One example's settings under the active profile: hyper-parameters, sizes, `profile`, `data`, `seed`...
 * (numbers, strings and booleans from example.toml, used as they are: hence `any`). */
// deno-lint-ignore no-explicit-any
export type Settings = Readonly<Record<string, any>>;

// Names that JavaScript itself asks objects for (await, JSON, inspection): never an error.
const ASKED_BY_JAVASCRIPT = new Set(["then", "toJSON", "constructor", "valueOf", "toString"]);

/**
 * The example's settings, as rosetta.settings("<example>") gives them to the Python tabs (the same
 * ROSETTA_PROFILE, ROSETTA_OVERRIDES and per-row sizes). Read-only; a misspelt name throws, as in Python.
 */
export function settings(example: string): Settings {
  const values = Object.freeze(bridge("settings", example).settings as Record<string, unknown>);
  return new Proxy(values, {
    get(target, name, receiver) {
      if (typeof name === "string" && !(name in target) && !ASKED_BY_JAVASCRIPT.has(name)) {
        throw new Error(`${example} has no setting '${name}' (known: ${Object.keys(target).join(", ")})`);
      }
      return Reflect.get(target, name, receiver);
    },
  });
}

/** Deno.jupyter in Deno's Jupyter kernel; undefined elsewhere (where reading it throws). */
function inJupyter(): typeof Deno.jupyter | undefined {
  try {
    return Deno.jupyter;
  } catch {
    return undefined;
  }
}

function readable(value: unknown): string {
  return typeof value === "number" && !Number.isInteger(value) ? value.toFixed(4) : String(value);
}

/**
 * Hand the metrics to the build (`await report({accuracy, train_samples})`), like Python's report():
 * in Jupyter a display output of its own MIME type next to a readable line; run as a plain script,
 * the line and the JSON payload are printed. `line` replaces the readable line.
 */
export async function report(metrics: Record<string, unknown>, line?: string) {
  const payload = { metrics, context: { ...context } };
  line ??= "reported: " + Object.entries(metrics).map(([name, value]) => `${name}=${readable(value)}`).join(", ");
  const jupyter = inJupyter();
  if (jupyter) {
    await jupyter.display({ [MIME_TYPE]: payload, "text/plain": line }, { raw: true });
  } else {
    console.log(line);
    console.log(JSON.stringify(payload));
  }
  return payload;
}

const TYPED_ARRAYS = { float32: Float32Array, float64: Float64Array, int32: Int32Array, uint8: Uint8Array };
type Loaded = Record<string, Float32Array | Float64Array | Int32Array | Uint8Array> & {
  shapes: Record<string, number[]>;
};

const camelCase = (name: string) => name.replace(/_([a-z])/g, (_, letter) => letter.toUpperCase());

/** Any loader of rosetta/data/: its arrays as typed arrays (flat, C order), named xTrain, yTrain..., and their
 * shapes. */
export function load(hp: Settings, loader: string, options: { layout?: "NCHW" | "NHWC" } = {}): Loaded {
  const folder = Deno.makeTempDirSync({ prefix: "rosetta-bridge-" });
  try {
    const args = ["load", hp.example, loader, folder, ...(options.layout ? ["--layout", options.layout] : [])];
    const index = bridge(...args) as { arrays: Record<string, { file: string; shape: number[]; dtype: string }> };
    const loaded = { shapes: {} } as Loaded;
    for (const [name, { file, shape, dtype }] of Object.entries(index.arrays)) {
      const TypedArray = TYPED_ARRAYS[dtype as keyof typeof TYPED_ARRAYS];
      // Little-endian, as typed arrays are on x86 and ARM. A view needs an aligned start: copy if not.
      let bytes = Deno.readFileSync(`${folder}/${file}`);
      if (bytes.byteOffset % TypedArray.BYTES_PER_ELEMENT) bytes = bytes.slice();
      const length = bytes.byteLength / TypedArray.BYTES_PER_ELEMENT;
      loaded[camelCase(name)] = new TypedArray(bytes.buffer, bytes.byteOffset, length);
      loaded.shapes[camelCase(name)] = shape;
    }
    return loaded;
  } finally {
    Deno.removeSync(folder, { recursive: true });
  }
}

/**
 * CIFAR-10 sized by the profile, as rosetta.data.cifar10.load gives it to the Python tabs: the same
 * seeded subset in the same order (synthetic images at the smoke profile). Float32 images in [0, 1],
 * flat, in `layout`; int32 labels.
 */
export const cifar10 = {
  load(hp: Settings, { layout = "NCHW" }: { layout?: "NCHW" | "NHWC" } = {}) {
    const { xTrain, yTrain, xTest, yTest, shapes } = load(hp, "cifar10", { layout });
    return {
      xTrain: xTrain as Float32Array, yTrain: yTrain as Int32Array,
      xTest: xTest as Float32Array, yTest: yTest as Int32Array,
      trainShape: shapes.xTrain, testShape: shapes.xTest,   // e.g. [6400, 32, 32, 3] (NHWC)
    };
  },
};
