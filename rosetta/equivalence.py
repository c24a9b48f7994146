"""Equivalence stage: does every tab compute the same function?

For an example with ``snippets/<example>/equivalence/weights.toml``, each framework's worker
(``equivalence_worker``, in that framework's environment) runs the snippet's
own steps up to the timed one, loads the same neutral weights through its adapter, computes
logits for the same batch and trains the same batches. This module compares every pair:
round trip exact, logits, the loss at every step, the final weights; each against the
tolerance in weights.toml. A failure names the pair and the size of the difference.

The workers time nothing that is shown, so on a machine without a GPU two run at once, each pinned to
its half of the CPUs (one core each on a 2-core machine); an interrupted check kills every worker it
started. The running is per row, and only the comparisons (cheap) are per pair.

The result (plain JSON) lives in results/<machine>/<profile>/_equivalence/<example>.json.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import os
import queue
import shutil
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path

import numpy as np

from . import environments, identity, neutral, results
from .project import Example, Framework, Project, script_in
from .settings import settings
from .snippets import SnippetError, parse

API_VERSION = 4                          # 4: operation counts; 3: the snippets' own train cells, inputs alone
FOLDER = "equivalence"                   # snippets/<example>/equivalence/
RESULTS_FOLDER = "_equivalence"          # results/<machine>/<profile>/_equivalence/
WORKER_CODE = ("rosetta/neutral.py", "rosetta/equivalence_worker.py", "rosetta/equivalence.py",
               "rosetta/step_runner.py")
WORKER_TIMEOUT = 900                     # seconds for one framework's whole check
OPERATIONS_TOLERANCE = 0.01              # neutral operation count vs a framework's FLOP counter, relative
# The facts an adapter may report from its framework's own FLOP counter (per sample, in GFLOP).
COUNTED = {"forward": "forward GFLOPs per sample", "train": "training GFLOPs per sample"}


def spec_folder(example: Example) -> Path:
    return example.folder / FOLDER


def has_checks(example: Example) -> bool:
    return (spec_folder(example) / neutral.SPEC_FILE).exists()


def adapter_path(example: Example, fw: Framework | str) -> Path:
    """A row's adapter: like its snippet, one per program (or one for the row alone)."""
    return script_in(spec_folder(example), fw)


def result_path(project: Project, machine: str, profile: str, example: str) -> Path:
    return project.results / machine / profile / RESULTS_FOLDER / f"{example}.json"


def load_spec(project: Project, example: Example, profile: str) -> neutral.Spec:
    """The spec with shapes resolved against the settings the checks run under (overrides applied)."""
    folder = spec_folder(example)
    plain = settings(example.name, profile, snippets=project.snippets).as_dict()
    overrides = neutral.load_spec(folder, plain).overrides
    return neutral.load_spec(folder, {**plain, **overrides})


def cache_key(project: Project, example: Example, frameworks: list[Framework], envs: dict,
              profile: str, machine: str) -> str:
    digest = hashlib.sha256()
    for path in sorted(spec_folder(example).iterdir()):
        if path.is_file():
            digest.update(path.name.encode() + hashlib.sha256(path.read_bytes()).digest())
    for fw in candidates_of(example, frameworks):
        env = envs.get(fw.name)
        digest.update(fw.name.encode() + identity.snippet_identity(example.snippet_path(fw)).encode()
                      + (env.fingerprint_hash.encode() if env is not None and env.ok else b"-"))
    for entry in WORKER_CODE:
        path = results.REPO_ROOT / entry
        digest.update(identity.python_identity(path.read_text()).encode())
    for part in (identity.definition_identity(example.folder / "example.toml").encode(),
                 results.snippet_side_hash(example).encode(), profile.encode(), machine.encode()):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()


# --- running one framework ------------------------------------------------------------------------

def step_codes(example: Example, path: Path) -> tuple[str, str]:
    """The snippet's steps up to (not including) the timed one (setup, data, model), and the timed step."""
    steps = parse(path, example).steps
    names = [s.name for s in steps]
    end = names.index(example.timed_step) if example.timed_step in names else len(steps)
    timed = steps[end].code if end < len(steps) else ""
    return "\n\n".join(s.code for s in steps[:end]), timed


def run_framework(project: Project, example: Example, fw: Framework, spec: neutral.Spec, profile: str,
                  inputs: dict, job_dir: Path, change: str = "", train_cell: bool = False,
                  cores: tuple[int, ...] = ()) -> dict:
    """One worker process; returns {status, reason, seconds, arrays}. `change` is code run after
    the snippet's steps (a note's experiment, e.g. moving Adam's epsilon); with `train_cell` the
    worker also runs the snippet's own timed (training) cell over the same batches. `cores`: the CPUs
    it may use (all when empty)."""
    if job_dir.exists():
        shutil.rmtree(job_dir)
    job_dir.mkdir(parents=True)
    try:
        code, timed = step_codes(example, example.snippet_path(fw))
    except SnippetError as exc:
        return {"status": "failed", "reason": str(exc)}
    (job_dir / "job.json").write_text(json.dumps({
        "snippet": str(example.snippet_path(fw)), "code": code + ("\n\n" + change if change else ""),
        "train_code": timed if train_cell and spec.steps else "", "adapter": str(adapter_path(example, fw))}))
    neutral.save(job_dir / "weights.npz", inputs["weights"])
    neutral.save(job_dir / "batches.npz", inputs["batches"])
    run_dir = project.build / "run" / example.name          # outside snippets/: no self-import
    run_dir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "ROSETTA_PROFILE": profile, "ROSETTA_SNIPPETS": str(project.snippets),
           "ROSETTA_OVERRIDES": json.dumps(spec.overrides), "PYTHONHASHSEED": "0",
           "TF_CPP_MIN_LOG_LEVEL": "2", neutral.BATCHES_VARIABLE: str(job_dir / "batches.npz"),
           **environments.process_variables(project, fw)}
    if "weights" in spec.overrides:
        env.pop("ROSETTA_WEIGHTS", None)      # the checks bring their own weights: no download
    command = [*pinned_to(cores), str(environments.venv_python(project, fw)), "-P", "-m",
               "rosetta.equivalence_worker", str(job_dir)]
    started = time.perf_counter()
    try:
        done = LIVE.run(command, cwd=run_dir, env=env, timeout=WORKER_TIMEOUT)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "reason": f"no answer within {WORKER_TIMEOUT} s"}
    seconds = time.perf_counter() - started
    (job_dir / "log.txt").write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        tail = [line for line in done.stderr.strip().splitlines() if line.strip()][-1:] or ["(no output)"]
        return {"status": "failed", "reason": f"worker exited {done.returncode}: {tail[0]}",
                "log": str(job_dir / "log.txt"), "seconds": seconds}
    return {"status": "ok", "reason": "", "seconds": seconds, "arrays": neutral.load(job_dir / "out.npz"),
            "facts": json.loads((job_dir / "facts.json").read_text())}


class LiveWorkers:
    """The worker processes running now (from any thread), so that an interrupted check can end them all:
    a KeyboardInterrupt reaches the main thread only, while the workers wait in other threads."""

    def __init__(self):
        self.processes: set[subprocess.Popen] = set()
        self.lock = threading.Lock()

    def run(self, command: list[str], cwd: Path, env: dict, timeout: float) -> subprocess.CompletedProcess:
        with subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) as process:
            with self.lock:
                self.processes.add(process)
            try:
                stdout, stderr = process.communicate(timeout=timeout)
            except BaseException:            # a timeout, or an interruption in this thread
                process.kill()
                process.wait()
                raise
            finally:
                with self.lock:
                    self.processes.discard(process)
        return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)

    def kill_all(self) -> None:
        with self.lock:
            running = list(self.processes)
        for process in running:
            process.kill()
        for process in running:
            process.wait()


LIVE = LiveWorkers()


def parallel_workers(machine_info: dict) -> int:
    """How many workers run at once: ROSETTA_CHECK_WORKERS if set; else one per core, at most 2, on a
    machine without a GPU (two workers on one GPU would contend for its memory: JAX takes most of it)."""
    given = os.environ.get("ROSETTA_CHECK_WORKERS", "")
    if given.strip().isdigit() and int(given) > 0:
        return int(given)
    return 1 if machine_info.get("gpus") else max(1, min(2, os.cpu_count() or 1))


def core_groups(workers: int) -> list[tuple[int, ...]]:
    """This process's CPUs in `workers` groups, one per worker running side by side; none (no pinning) for
    one worker or where `taskset` is missing. Every framework sizes its thread pools from the CPUs it may
    run on (OpenMP, OpenBLAS, oneDNN, Eigen, XLA), so two workers that each see both cores of a 2-core
    machine run four busy threads on two. Measured on a 2-core Xeon: PyTorch's GRU worker beside another
    took 29 s unpinned and 3.4 s pinned; the GRU check as a whole 86 s and 45 s."""
    available = sorted(os.sched_getaffinity(0))
    if workers <= 1 or len(available) < workers or not shutil.which("taskset"):
        return [()] * max(1, workers)
    return [tuple(available[i::workers]) for i in range(workers)]


def pinned_to(cores: tuple[int, ...]) -> list[str]:
    """The command prefix that runs a process on these CPUs only (util-linux's taskset execs it)."""
    return ["taskset", "--cpu-list", ",".join(map(str, cores))] if cores else []


def in_parallel(tasks: list, workers: int) -> list:
    """Call each task (a function of no arguments) with at most `workers` at a time; their results in
    order. An interruption (Ctrl-C, SIGTERM) kills every worker process and cancels what had not started."""
    if workers <= 1 or len(tasks) <= 1:
        try:
            return [task() for task in tasks]
        except BaseException:
            LIVE.kill_all()
            raise
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="equivalence")
    try:
        futures = [pool.submit(task) for task in tasks]
        while wait(futures, timeout=0.5).not_done:
            pass                   # (short waits: a signal's handler runs between them, in this thread)
        return [future.result() for future in futures]
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        LIVE.kill_all()
        raise
    finally:
        pool.shutdown(wait=True)


# --- comparing ---------------------------------------------------------------------------------------

def split(arrays: dict, prefix: str) -> dict:
    return {name[len(prefix):]: value for name, value in arrays.items() if name.startswith(prefix)}


def absolute_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| elementwise; infinite where either side is not finite (a diverged run must never
    compare as close: NaN > tolerance is False)."""
    a, b = a.astype(np.float64), b.astype(np.float64)
    return np.where(np.isfinite(a) & np.isfinite(b), np.abs(a - b), np.inf)


def size(value: float) -> str:
    """A measured difference for a message; infinite means a value was not finite."""
    return f"{value:.3g}" if np.isfinite(value) else "inf (a value is not finite: the run diverged)"


def max_difference(a: dict, b: dict) -> tuple[float, str]:
    """Largest |a - b| over all tensors, and the tensor where it is."""
    worst, where = 0.0, ""
    for name in a:
        diff = float(np.max(absolute_difference(a[name], b[name]), initial=0.0))
        if diff > worst or not where:
            worst, where = diff, name
    return worst, where


def loss_difference(a: np.ndarray, b: np.ndarray) -> tuple[float, int]:
    """Largest relative difference of two loss curves, and the step (1-based) where it is."""
    relative = absolute_difference(a, b) / np.maximum(np.maximum(np.abs(a), np.abs(b)), 1e-12)
    relative = np.where(np.isnan(relative), np.inf, relative)
    step = int(np.argmax(relative))
    return float(relative[step]), step + 1


def logits_difference(spec: neutral.Spec, a: np.ndarray, b: np.ndarray) -> float:
    """Largest |a - b| of two outputs; relative to the largest |b| where the spec says so (features)."""
    diff = float(np.max(absolute_difference(a, b)))
    return diff / max(float(np.max(np.abs(b))), 1e-30) if spec.tolerance.get("relative") else diff


def different_function(spec: neutral.Spec, a: str, b: str) -> bool:
    """A note says one side computes another function (another variant of the model)."""
    return any(n.get("different_function") and {a, b} & set(n["frameworks"]) for n in spec.notes)


def pair_tolerance(spec: neutral.Spec, a: str, b: str) -> float:
    """The final-weights tolerance of a pair: a note about either side may allow the size it explains."""
    allowed = [n["weights_tolerance"] for n in spec.notes
               if "weights_tolerance" in n and {a, b} & set(n["frameworks"])]
    return max([spec.tolerance["weights"], *allowed])


def compare(spec: neutral.Spec, initial: dict, outputs: dict[str, dict]) -> dict:
    """Every pair of frameworks that ran; failures are sentences naming the pair and the size."""
    tol = spec.tolerance
    failures, roundtrip = [], {}
    finals = {}
    for name, arrays in outputs.items():
        back, final = split(arrays, "roundtrip/"), split(arrays, "final/")
        try:
            neutral.check_weights(spec, back, f"{name} adapter, read after load")
            neutral.check_weights(spec, final, f"{name} adapter, read after training")
        except neutral.SpecError as exc:
            failures.append(str(exc))
            roundtrip[name] = None
            continue
        diff, where = max_difference(back, initial)
        roundtrip[name] = diff
        if diff != 0:
            failures.append(f"{name}: round trip neutral -> {name} -> neutral is not exact: "
                            f"{where} differs by {diff:.3g}")
        finals[name] = final
    names = [n for n in outputs if roundtrip.get(n) is not None]
    if not spec.steps:
        finals = {}            # inference only: nothing trained, nothing moved
    # Inference mode: an input's outputs do not depend on the rest of its batch (batch-norm statistics).
    alone = {}
    for name in names:
        if "alone" in outputs[name]:
            alone[name] = logits_difference(spec, outputs[name]["alone"], outputs[name]["logits"][:1])
            if alone[name] > tol["logits"]:
                failures.append(f"forward: {name}: one input alone differs from the same input in its batch by "
                                f"{alone[name]:.3g} (tolerance {tol['logits']:g}): is it in inference mode?")
    # The snippets' own train cells: across frameworks, and each against its adapter's steps.
    cells = {name: split(outputs[name], "cell/") for name in finals if split(outputs[name], "cell/")}
    cell_vs_steps, cell_weights = {}, {}
    for name, cell in cells.items():
        try:
            neutral.check_weights(spec, cell, f"{name} adapter, read after the train cell")
        except neutral.SpecError as exc:
            failures.append(str(exc))
            continue
        cell_vs_steps[name], where = max_difference(cell, finals[name])
        if cell_vs_steps[name] > tol["weights"]:
            failures.append(f"train cell: {name}: the snippet's own train cell ends {size(cell_vs_steps[name])} away "
                            f"from the same {spec.steps} steps taken one by one (in {where}; tolerance "
                            f"{tol['weights']:g})")
    logits, losses, weights, weights_tolerance = {}, {}, {}, {}
    for a, b in itertools.combinations(names, 2):
        pair = f"{a} vs {b}"
        logits[pair] = logits_difference(spec, outputs[a]["logits"], outputs[b]["logits"])
        if logits[pair] > tol["logits"] and not different_function(spec, a, b):
            what = "relative difference of the outputs" if tol.get("relative") else "|Δ logits|"
            failures.append(f"forward: {pair}: max {what} = {logits[pair]:.3g} (tolerance {tol['logits']:g})")
        if not spec.steps:
            continue
        losses[pair], step = loss_difference(outputs[a]["losses"], outputs[b]["losses"])
        if losses[pair] > tol["loss"]:
            failures.append(f"training: {pair}: loss differs by {size(losses[pair])} relative at step {step} "
                            f"({outputs[a]['losses'][step - 1]:.6f} vs {outputs[b]['losses'][step - 1]:.6f}; "
                            f"tolerance {tol['loss']:g})")
        weights[pair], where = max_difference(finals[a], finals[b])
        weights_tolerance[pair] = pair_tolerance(spec, a, b)
        if weights[pair] > weights_tolerance[pair]:
            failures.append(f"training: {pair}: final weights differ by {size(weights[pair])} in {where} "
                            f"after {spec.steps} steps (tolerance {weights_tolerance[pair]:g})")
        if a in cell_vs_steps and b in cell_vs_steps:
            cell_weights[pair], where = max_difference(cells[a], cells[b])
            if cell_weights[pair] > weights_tolerance[pair]:
                failures.append(f"train cell: {pair}: weights after the snippets' own train cells differ by "
                                f"{size(cell_weights[pair])} in {where} (tolerance {weights_tolerance[pair]:g})")
    # How far training moved the weights: the scale the final-weights differences sit against.
    moved = {name: max_difference(final, initial)[0] for name, final in finals.items()}
    return {"roundtrip": roundtrip, "logits": logits, "alone": alone, "losses": losses, "weights": weights,
            "cell_weights": cell_weights, "cell_vs_steps": cell_vs_steps,
            "weights_tolerance": weights_tolerance, "moved": moved, "failures": failures}


def final_difference(a: dict, b: dict) -> tuple[float, str]:
    return max_difference(split(a, "final/"), split(b, "final/"))


# --- the stage -----------------------------------------------------------------------------------------

def inputs_hash(inputs: dict) -> str:
    """Identity of a run's neutral weights and batches (their names, shapes, types and values)."""
    digest = hashlib.sha256()
    for group in ("weights", "batches"):
        for name, value in sorted(inputs[group].items()):
            value = np.ascontiguousarray(value)
            digest.update(f"{group}/{name}:{value.dtype}:{value.shape}".encode() + value.tobytes())
    return digest.hexdigest()


def row_key(project: Project, example: Example, fw: Framework, env, spec: neutral.Spec, profile: str,
            machine: str) -> str:
    """What one row's worker output depends on besides its inputs: its snippet and adapter, its environment
    (packages and variables), the worker's code, the example's settings and snippet-side code, the
    overrides, profile and machine."""
    digest = hashlib.sha256()
    variables = json.dumps(environments.process_variables(project, fw), sort_keys=True)
    for part in (identity.snippet_identity(example.snippet_path(fw)).encode(), adapter_path(example, fw).read_bytes(),
                 env.fingerprint_hash.encode(), variables.encode(),
                 identity.definition_identity(example.folder / "example.toml").encode(),
                 results.snippet_side_hash(example).encode(), json.dumps(spec.overrides, sort_keys=True).encode(),
                 profile.encode(), machine.encode(), str(API_VERSION).encode(),
                 *(identity.python_identity((results.REPO_ROOT / entry).read_text()).encode()
                   for entry in WORKER_CODE)):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()


class Runner:
    """Runs a worker for one example (safe to call from several threads at once) and logs what it gave.

    A run whose row and inputs are unchanged since the last check is not run again: its output is kept
    (in _build/equivalence/<example>/kept/), so editing one snippet re-runs that row's workers only and the
    comparisons of every pair. `rerun` (the build's --force) runs everything."""

    def __init__(self, project: Project, example: Example, spec: neutral.Spec, profile: str, log,
                 workers: int = 1, row_keys: dict | None = None, rerun: bool = True):
        self.project, self.example, self.spec, self.profile, self.log = project, example, spec, profile, log
        self.jobs = itertools.count(1)          # a folder per run: runs side by side never share one
        self.cores = queue.SimpleQueue()        # the CPU groups free now: a run takes one and gives it back
        for group in core_groups(workers):
            self.cores.put(group)
        self.row_keys, self.rerun = row_keys or {}, rerun
        self.kept_dir = project.build / "equivalence" / example.name / "kept"
        self.keeping = threading.Lock()         # (two runs with the same row, tag and change share a folder)
        self.hashed: dict[int, tuple[dict, str]] = {}

    def run_key(self, fw: Framework, inputs: dict, tag: str, change: str, train_cell: bool, cores: tuple) -> str:
        with self.keeping:        # each inputs dict hashed once (ResNet-50's weights are 94 MB), not per run
            if id(inputs) not in self.hashed:
                self.hashed[id(inputs)] = (inputs, inputs_hash(inputs))    # (held: its id stays its own)
        parts = [self.row_keys.get(fw.name, ""), self.hashed[id(inputs)][1], tag, change, str(train_cell),
                 str(len(cores))]             # (threads can change the rounding)
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()

    def kept(self, folder: Path, key: str) -> dict | None:
        with self.keeping:
            try:
                outcome = json.loads((folder / "outcome.json").read_text())
                if outcome.pop("key") != key:
                    return None
                return {**outcome, "kept": True, "arrays": neutral.load(folder / "out.npz")}
            except (OSError, ValueError, KeyError):      # none yet, or cut off: run again
                return None

    def keep(self, folder: Path, key: str, job_dir: Path, outcome: dict) -> None:
        """The output moves to the kept folder, and the job's inputs (made again at will) go: ResNet-50's
        weights are 94 MB, its output twice that."""
        with self.keeping:
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            os.replace(job_dir / "out.npz", folder / "out.npz")
            for inputs in ("weights.npz", "batches.npz"):
                (job_dir / inputs).unlink(missing_ok=True)
            record = {k: v for k, v in outcome.items() if k in ("status", "reason", "seconds", "facts")}
            results.write_json(folder / "outcome.json", {**record, "key": key})   # last: the folder is whole

    def __call__(self, fw: Framework, inputs: dict, tag: str, change: str = "", train_cell: bool = False) -> dict:
        job_dir = self.project.build / "equivalence" / self.example.name / f"{next(self.jobs):02d}-{fw.name}-{tag}"
        cores = self.cores.get()
        try:
            key = self.run_key(fw, inputs, tag, change, train_cell, cores) if fw.name in self.row_keys else ""
            folder = self.kept_dir / f"{fw.name}-{tag}-{hashlib.sha256(change.encode()).hexdigest()[:8]}"
            outcome = None if self.rerun or not key else self.kept(folder, key)
            if outcome is None:
                outcome = run_framework(self.project, self.example, fw, self.spec, self.profile, inputs, job_dir,
                                        change, train_cell, cores)
                if key and outcome["status"] == "ok":
                    self.keep(folder, key, job_dir, outcome)
        finally:
            self.cores.put(cores)
        self.log(f"  equivalence: {fw.name} ({tag}): {outcome['status']}"
                 + (", kept from the last check (nothing it depends on changed)" if outcome.get("kept") else
                    f" in {outcome['seconds']:.1f} s" if outcome["status"] == "ok" else f": {outcome['reason']}"))
        return outcome


def noise_floor(run: Runner, fw: Framework, inputs: dict, base: dict, seed: int) -> dict:
    """One framework against itself from starting weights one float32 ulp apart: how far rounding
    alone carries two runs apart in `steps` steps (ReLU and max-pool decisions can flip)."""
    nudged = {**inputs, "weights": neutral.nudged(inputs["weights"], seed)}
    outcome = run(fw, nudged, "nudged")
    if outcome["status"] != "ok":
        return {"framework": fw.name, "status": outcome["status"], "reason": outcome["reason"]}
    weights, where = final_difference(base, outcome["arrays"])
    loss, _ = loss_difference(base["losses"], outcome["arrays"]["losses"])
    return {"framework": fw.name, "status": "ok", "weights": weights, "where": where, "loss": loss}


def note_tolerance(spec: neutral.Spec) -> float:
    """A note's experiment must bring the difference within the plain tolerance of what it compares."""
    return spec.tolerance["weights"] if spec.steps else spec.tolerance["logits"]


def note_metric(spec: neutral.Spec, a: dict, b: dict) -> tuple[float, str]:
    """What a note's experiment compares: the final weights, or for inference only the outputs."""
    if spec.steps:
        return final_difference(a, b)
    return logits_difference(spec, a["logits"], b["logits"]), "outputs"


def measure_note(run: Runner, note: dict, by_name: dict, inputs: dict, outputs: dict, seed: int) -> dict:
    """Re-run the note's frameworks with its change (and batches): the difference to `against`
    must fall within the example's plain tolerance, which shows the note explains all of it."""
    spec, against = run.spec, note["against"]
    if against not in outputs:
        return {"status": "not-run", "reason": f"{against} did not run"}
    kind = note.get("batches", "random")
    changed_inputs = inputs if kind == "random" else {**inputs, "batches": neutral.batches(spec, seed, kind)}
    reference = outputs[against]
    if kind != "random":
        outcome = run(by_name[against], changed_inputs, f"note-{kind}")
        if outcome["status"] != "ok":
            return {"status": outcome["status"], "reason": outcome["reason"]}
        reference = outcome["arrays"]
    measured = {}
    for name in note["frameworks"]:
        if name not in outputs:
            measured[name] = {"status": "not-run"}
            continue
        outcome = run(by_name[name], changed_inputs, f"note-{kind}", note.get("change", ""))
        if outcome["status"] != "ok":
            measured[name] = {"status": outcome["status"], "reason": outcome["reason"]}
            continue
        before, before_where = note_metric(spec, outputs[name], outputs[against])
        after, after_where = note_metric(spec, outcome["arrays"], reference)
        measured[name] = {"status": "ok", "before": before, "before_where": before_where,
                          "after": after, "after_where": after_where, "tolerance": note_tolerance(spec),
                          "passed": after <= note_tolerance(spec), "facts_after": outcome.get("facts", {})}
    return {"status": "ok", "against": against, "frameworks": measured}


def operations_check(spec: neutral.Spec, per_framework: dict, notes: list[dict]) -> dict:
    """The neutral operation count against the first framework that counts its own (an adapter's
    facts); where a note says that framework computes another variant, its count after the note's
    change (the neutral variant) is the one compared, and where that change could not be measured
    (its `against` row did not run, as on a machine with only some rows), the next framework is."""
    count = neutral.operations(spec)
    if not spec.steps:
        count.pop("train")                      # inference only
    result = {"neutral": count, "counted": None, "differences": {}, "tolerance": OPERATIONS_TOLERANCE}
    for name, info in per_framework.items():
        facts, variant = info.get("facts") or {}, "as built"
        if COUNTED["forward"] not in facts:
            continue
        unmeasured = False
        for note in notes:
            if not (note.get("different_function") and name in note.get("frameworks", ())):
                continue
            after = (note.get("measured") or {}).get("frameworks", {}).get(name, {}).get("facts_after") or {}
            if COUNTED["forward"] in after:
                facts, variant = after, f"with the change of the note “{note['title']}”"
            else:
                unmeasured = True
        if unmeasured:
            continue
        counted = {kind: facts[key] * 1e9 for kind, key in COUNTED.items() if key in facts and kind in count}
        result["counted"] = {"framework": name, "variant": variant, **counted}
        result["differences"] = {kind: abs(result["counted"][kind] - count[kind]) / count[kind]
                                 for kind in count if kind in result["counted"] and count[kind]}
        break
    return result


def previous(project: Project, example: Example, profile: str, machine: str, frameworks: list[Framework],
             envs: dict) -> dict | None:
    """The last result on record (for pages of examples this build did not check), marked stale
    when what it depends on has changed since."""
    data = stored(result_path(project, machine, profile, example.name))
    if data is not None:
        data["stale"] = data.get("cache_key") != cache_key(project, example, candidates_of(example, frameworks),
                                                           envs, profile, machine)
    return data


# The fields of an equivalence result that the pages and the next build read.
RESULT_FIELDS = ("example", "cache_key", "frameworks", "failures", "passed")


def stored(path: Path, log=lambda line: None) -> dict | None:
    """A result file this version can read, or None; one that cannot be read (cut off, edited, another
    format) is named (`log`) and treated as missing: the next check measures it again."""
    if not path.exists():
        return None
    try:
        return results.read_stored(path, API_VERSION, RESULT_FIELDS)
    except results.ResultFileError as exc:
        log(f"  equivalence: {exc}: treated as missing")
        return None


def candidates_of(example: Example, frameworks: list[Framework]) -> list[Framework]:
    return [fw for fw in frameworks if example.snippet_path(fw).exists()]


def check(project: Project, example: Example, frameworks: list[Framework], envs: dict, profile: str,
          machine: str, machine_info: dict, force: bool = False, log=print) -> dict | None:
    """The example's equivalence result: measured again when anything it depends on changed."""
    if not has_checks(example):
        return None
    candidates = candidates_of(example, frameworks)
    key = cache_key(project, example, candidates, envs, profile, machine)
    path = result_path(project, machine, profile, example.name)
    last = stored(path, log)
    if last is not None and last.get("cache_key") == key and not force:
        log("  equivalence: up to date")
        return last
    spec = load_spec(project, example, profile)
    seed = settings(example.name, profile, snippets=project.snippets).as_dict().get("seed", 0)
    initial = neutral.initial_weights(spec, seed)
    inputs = {"weights": initial, "batches": neutral.batches(spec, seed)}
    per_framework, outputs, runnable = {}, {}, []
    for fw in candidates:
        env = envs.get(fw.name)
        if env is None or not env.ok:
            per_framework[fw.name] = {"status": "not-installed", "reason": env.reason if env else "no environment"}
        elif not adapter_path(example, fw).exists():
            per_framework[fw.name] = {"status": "no-adapter",
                                      "reason": f"no {adapter_path(example, fw).relative_to(project.root)}"}
        else:
            runnable.append(fw)
    row_keys = {fw.name: row_key(project, example, fw, envs[fw.name], spec, profile, machine) for fw in runnable}
    workers = parallel_workers(machine_info)
    run = Runner(project, example, spec, profile, log, workers, row_keys, rerun=force)
    base_runs = in_parallel([lambda fw=fw: run(fw, inputs, "base", train_cell=True) for fw in runnable], workers)
    for fw, outcome in zip(runnable, base_runs):
        env = envs[fw.name]
        arrays = outcome.pop("arrays", None)
        if arrays is not None:
            outputs[fw.name] = arrays
            outcome["losses"] = [float(v) for v in arrays["losses"]]
        packages = {**env.fingerprint.get("packages", {}), "python": env.fingerprint.get("python")}
        outcome["versions"] = results.key_packages(fw, packages)
        per_framework[fw.name] = outcome
    per_framework = {fw.name: per_framework[fw.name] for fw in candidates if fw.name in per_framework}
    compared = compare(spec, initial, outputs)
    failures = compared.pop("failures")
    failures += [f"{name}: {info['status']}: {info['reason']}" for name, info in per_framework.items()
                 if info["status"] in ("failed", "timeout")]
    by_name = {fw.name: fw for fw in candidates}
    # The noise floor and each note's experiment need the base runs only: they run side by side too.
    first = next(iter(outputs), None)
    follow_ups = [lambda: noise_floor(run, by_name[first], inputs, outputs[first], seed)
                  if first and spec.steps else None]
    follow_ups += [lambda note=note: measure_note(run, note, by_name, inputs, outputs, seed)
                   for note in spec.notes if note.get("against")]
    floor, *measured_notes = in_parallel(follow_ups, workers)
    notes = []
    for note in spec.notes:
        entry = dict(note)
        if note.get("against"):
            entry["measured"] = measured_notes.pop(0)
            for name, m in entry["measured"].get("frameworks", {}).items():
                if m.get("passed") is False:
                    failures.append(f"note {note['title']!r}: with its change, {name} vs {note['against']} "
                                    f"still differ by {m['after']:.3g} in {m['after_where']} "
                                    f"(tolerance {m['tolerance']:g}): the note does not explain it all")
        notes.append(entry)
    operations = operations_check(spec, per_framework, notes)
    for kind, difference in operations["differences"].items():
        if difference > OPERATIONS_TOLERANCE:
            counted = operations["counted"]
            failures.append(f"operations: the neutral count of {kind} operations per sample "
                            f"({operations['neutral'][kind]:.4g}) and {counted['framework']}'s FLOP counter "
                            f"({counted[kind]:.4g}, {counted['variant']}) differ by {difference:.1%} "
                            f"(tolerance {OPERATIONS_TOLERANCE:.0%}): a positions entry in weights.toml is wrong")
    result = {"api_version": API_VERSION, "example": example.name, "profile": profile, "machine": machine,
              "machine_label": results.machine_label(machine_info), "cache_key": key, "date": results.now(),
              "seed": seed, "steps": spec.steps, "batch_size": spec.batch_size,
              "forward_batch": spec.forward_batch, "overrides": spec.overrides, "tolerance": spec.tolerance,
              "conventions": list(spec.conventions), "notes": notes, "noise_floor": floor,
              "operations": operations,
              "tensors": [{"name": t.name, "shape": list(t.shape)} for t in spec.tensors],
              "frameworks": per_framework, **compared, "failures": failures,
              "passed": not failures and len(outputs) >= 2}
    results.write_json(path, result)
    for failure in failures:
        log(f"  equivalence FAILED: {failure}")
    return result
