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

A row far slower than the others (named in the example's `equivalence/own_sizes.toml`) is not run on the check's
steps: it is compared on steps of its own size with one other row run again on them, beside the main check.

The result (plain JSON) lives in results/<machine>/<profile>/_equivalence/<example>.json.
"""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
import queue
import shutil
import threading
import time
from pathlib import Path

import numpy as np

from .. import model, neutral
from ..project import Example, Framework, Project, script_in
from ..settings import settings
from . import comparison, environments, identity, js_worker, ranks, results, store
from .context import RunContext
from .jobs import Job, parallel_workers
from .outcome import Outcome
from .snippets import SnippetError, parse
from .workers import LIVE, WORKER_TIMEOUT, core_groups, in_parallel, pinned_to, run_process, worker_environment

FOLDER = "equivalence"                   # snippets/<example>/equivalence/
WORKER_CODE = ("rosetta/neutral.py", "rosetta/equivalence_worker.py", "rosetta/build/comparison.py",
               "rosetta/step_runner.py")
RANKS_CODE = ("rosetta/cell_worker.py", "rosetta/build/ranks.py", "rosetta/rank_start.py")   # a data-parallel check
JS_WORKER_CODE = ("rosetta/build/js_worker.py", "rosetta/js/equivalence_worker.ts")   # a JavaScript row's worker


def worker_code(example: Example) -> tuple[str, ...]:
    """The code files a check's numbers depend on besides its snippets and adapters."""
    javascript = any(path.suffix == ".js" for path in spec_folder(example).glob("*"))
    return WORKER_CODE + (RANKS_CODE if model.example_workers(example) > 1 else ()) \
        + (JS_WORKER_CODE if javascript else ())


def code_substance(entry: str) -> str:
    """A worker file's identity (identity.py): a comment edit changes nothing."""
    language = "javascript" if entry.endswith((".js", ".ts")) else "python"
    return identity.code_identity((results.REPO_ROOT / entry).read_text(), language)


def spec_folder(example: Example) -> Path:
    return example.folder / FOLDER


def has_checks(example: Example) -> bool:
    return (spec_folder(example) / neutral.SPEC_FILE).exists()


def adapter_path(example: Example, fw: Framework | str) -> Path:
    """A row's adapter: like its snippet, one per program (or one for the row alone)."""
    return script_in(spec_folder(example), fw)


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
    for entry in worker_code(example):
        digest.update(code_substance(entry).encode())
    for part in (identity.definition_identity(example.folder / "example.toml").encode(),
                 results.snippet_side_hash(example).encode(), profile.encode(), machine.encode()):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()


@dataclasses.dataclass(frozen=True)
class OwnSizes:
    """A row checked on steps of its own size (`own_sizes.toml`: `[<row>]`), against one other row run again on
    the same steps: for a row that would take hours over the check's steps."""
    row: str
    against: str
    spec: neutral.Spec          # the check's spec with these steps and batches (and no notes)
    why: str = ""               # said on the page


def own_sizes(example: Example, spec: neutral.Spec, profile: str) -> dict[str, OwnSizes]:
    """The rows checked on steps of their own size (model.own_sizes), each with its spec at this profile. The batch
    size also goes into the overrides: the other side's snippet must train the same batches."""
    found = {}
    for row, entry in model.own_sizes(example).items():
        if "against" not in entry:
            raise neutral.SpecError(f"{spec_folder(example) / 'own_sizes.toml'}: [{row}] needs `against`, the row "
                                    "run again on its batches")
        sized = {**entry, **entry.get("profiles", {}).get(profile, {})}
        steps, batch = int(sized.get("steps", spec.steps)), int(sized.get("batch_size", spec.batch_size))
        found[row] = OwnSizes(row, entry["against"], dataclasses.replace(
            spec, steps=steps, batch_size=batch, overrides={**spec.overrides, "batch_size": batch}, notes=()),
            entry.get("why", ""))
    return found


# --- running one framework ------------------------------------------------------------------------

def step_codes(example: Example, path: Path) -> tuple[str, str]:
    """The snippet's steps up to (not including) the timed one (setup, data, model), and the timed step."""
    steps = parse(path, example).steps
    names = [s.name for s in steps]
    end = names.index(example.timed_step) if example.timed_step in names else len(steps)
    timed = steps[end].code if end < len(steps) else ""
    return "\n\n".join(s.code for s in steps[:end]), timed


# --- comparing ---------------------------------------------------------------------------------------
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
    variables = json.dumps(environments.process_variables(project, fw, profile), sort_keys=True)
    for part in (identity.snippet_identity(example.snippet_path(fw)).encode(), adapter_path(example, fw).read_bytes(),
                 env.fingerprint_hash.encode(), variables.encode(),
                 identity.definition_identity(example.folder / "example.toml", fw.name).encode(),
                 results.snippet_side_hash(example).encode(), json.dumps(spec.overrides, sort_keys=True).encode(),
                 profile.encode(), machine.encode(), str(store.CHECK.api_version).encode(),
                 *(code_substance(entry).encode() for entry in worker_code(example))):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()


class Runner:
    """Runs a worker for one example (safe to call from several threads at once) and logs what it gave.

    A run whose row and inputs are unchanged since the last check is not run again: its output is kept
    (in _build/equivalence/<example>/kept/), so editing one snippet re-runs that row's workers only and the
    comparisons of every pair. The build's --force runs everything."""

    def __init__(self, context: RunContext, example: Example, spec: neutral.Spec, workers: int = 1,
                 row_keys: dict | None = None, beside: Runner | None = None, part: str = ""):
        """`beside`: a runner whose runs go on at the same time (another spec's): this one shares its CPUs and
        its job numbers; `part` names this one's folders apart from it."""
        self.context, self.example, self.spec, self.log = context, example, spec, context.log
        self.data_parallel = model.example_workers(example) > 1   # its rows run as ranks (run_ranks), this many:
        self.ranks = ranks.workers_here(example, context.machine_info)
        project = context.project
        self.jobs = itertools.count(1)          # a folder per run: runs side by side never share one
        self.cores = queue.SimpleQueue()        # the CPU groups free now: a run takes one and gives it back
        for group in core_groups(workers):
            self.cores.put(group)
        if beside is not None:
            self.jobs, self.cores = beside.jobs, beside.cores
        self.row_keys, self.rerun = row_keys or {}, context.options.force
        self.part, self.jobs_dir = part, project.build / "equivalence" / example.name
        self.kept_dir = self.jobs_dir / "kept" / part
        self.keeping = threading.Lock()         # (two runs with the same row, tag and change share a folder)
        self.hashed: dict[int, tuple[dict, str]] = {}

    def run_key(self, fw: Framework, inputs: dict, tag: str, change: str, train_cell: bool, cores: tuple,
                workers: int = 1) -> str:
        with self.keeping:        # each inputs dict hashed once (ResNet-50's weights are 94 MB), not per run
            if id(inputs) not in self.hashed:
                self.hashed[id(inputs)] = (inputs, inputs_hash(inputs))    # (held: its id stays its own)
        parts = [self.row_keys.get(fw.name, ""), self.hashed[id(inputs)][1], tag, change, str(train_cell),
                 str(len(cores))]             # (threads can change the rounding)
        if self.data_parallel:
            parts.append(f"{workers} workers")
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
            for rank_dir in job_dir.glob("rank-*"):
                shutil.rmtree(rank_dir, ignore_errors=True)
            record = {k: v for k, v in outcome.items() if k in ("status", "reason", "seconds", "facts", "ranks_differ")}
            store.write_json(folder / "outcome.json", {**record, "key": key})   # last: the folder is whole

    def run_worker(self, fw: Framework, inputs: dict, job_dir: Path, change: str = "", train_cell: bool = False,
                   cores: tuple[int, ...] = (), workers: int = 1) -> dict:
        """One worker process; returns {status, reason, seconds, arrays}. `change` is code run after
        the snippet's steps (a note's experiment, e.g. moving Adam's epsilon); with `train_cell` the
        worker also runs the snippet's own timed (training) cell over the same batches. `cores`: the CPUs
        it may use (all when empty). A data-parallel example's row runs as `workers` ranks (run_ranks)."""
        project, example, spec, profile = self.context.project, self.example, self.spec, self.context.profile
        if job_dir.exists():
            shutil.rmtree(job_dir)
        job_dir.mkdir(parents=True)
        try:
            code, timed = step_codes(example, example.snippet_path(fw))
        except SnippetError as exc:
            return {"status": Outcome.FAILED, "reason": str(exc)}
        (job_dir / "job.json").write_text(json.dumps({
            "snippet": str(example.snippet_path(fw)), "code": code + ("\n\n" + change if change else ""),
            "train_code": timed if train_cell and spec.steps else "", "adapter": str(adapter_path(example, fw))}))
        neutral.save(job_dir / "weights.npz", inputs["weights"])
        neutral.save(job_dir / "batches.npz", inputs["batches"])
        run_dir = project.build / "run" / example.name          # outside snippets/: no self-import
        run_dir.mkdir(parents=True, exist_ok=True)
        if self.data_parallel:
            return self.run_ranks(fw, job_dir, run_dir, train_cell, workers)
        if fw.language == "javascript":          # its own worker, the arrays as raw files (js_worker.py)
            js_worker.prepare(job_dir)
            worker = js_worker.command(project, fw, run_dir, job_dir)
        else:
            python = str(environments.venv_python(project, fw))
            worker = [python, "-P", "-m", "rosetta.equivalence_worker", str(job_dir)]
        started = time.perf_counter()
        status, reason = run_process([*pinned_to(cores), *worker], run_dir,
                                     worker_environment(project, profile, fw, spec, job_dir), job_dir / "log.txt")
        seconds = time.perf_counter() - started
        if status == Outcome.TIMEOUT:
            return {"status": status, "reason": reason}
        if status != Outcome.OK:
            return {"status": status, "reason": reason, "log": str(job_dir / "log.txt"), "seconds": seconds}
        if fw.language == "javascript":
            js_worker.finish(job_dir)
        return {"status": Outcome.OK, "reason": "", "seconds": seconds, "arrays": neutral.load(job_dir / "out.npz"),
                "facts": json.loads((job_dir / "facts.json").read_text())}

    def run_ranks(self, fw: Framework, job_dir: Path, run_dir: Path, cell: bool, workers: int) -> dict:
        """A data-parallel row's worker as `workers` ranks, started as its launcher would (ranks.py). A rank
        joins its process group once, so the adapter's steps and the snippet's own train cell (`cell`) are two
        launches (cell_worker). Rank 0's output is the row's; every other rank's weights must equal it."""
        project, python = self.context.project, str(environments.venv_python(self.context.project, fw))
        rank_dirs = [job_dir] + [job_dir / f"rank-{rank}" for rank in range(1, workers)]
        for rank_dir in rank_dirs[1:]:
            rank_dir.mkdir()
            for name in ("job.json", "weights.npz", "batches.npz"):
                shutil.copyfile(job_dir / name, rank_dir / name)
        module = "rosetta.cell_worker" if cell else "rosetta.equivalence_worker"
        env = worker_environment(project, self.context.profile, fw, self.spec, job_dir)
        started = time.perf_counter()
        outcomes, helper_logs = ranks.run_processes(
            ranks.Plan(ranks.launch_of(fw, workers), python, env, run_dir, LIVE),
            lambda rank: [python, "-P", "-m", module, str(rank_dirs[rank])], WORKER_TIMEOUT,
            [rank_dir / "log.txt" for rank_dir in rank_dirs])
        seconds = time.perf_counter() - started
        for name, log in helper_logs.items():
            (job_dir / f"{name}.log").write_text(log)
        failed = [(status, reason, rank) for rank, (status, reason) in enumerate(outcomes) if status != Outcome.OK]
        if failed:
            status, reason, rank = next((f for f in failed if "stopped by the build" not in f[1]), failed[0])
            return {"status": status, "reason": reason, "log": str(rank_dirs[rank] / "log.txt"), "seconds": seconds}
        arrays = [neutral.load(rank_dir / "out.npz") for rank_dir in rank_dirs]
        prefix = "cell/" if cell else "final/"
        mine = comparison.split(arrays[0], prefix)
        differ = max((comparison.max_difference(comparison.split(theirs, prefix), mine)[0] for theirs in arrays[1:]),
                     default=0.0)
        facts = job_dir / "facts.json"
        return {"status": Outcome.OK, "reason": "", "seconds": seconds, "arrays": arrays[0], "ranks_differ": differ,
                "facts": json.loads(facts.read_text()) if facts.exists() else {}}

    def __call__(self, fw: Framework, inputs: dict, tag: str, change: str = "", train_cell: bool = False,
                 workers: int | None = None) -> dict:
        """One row's run. A data-parallel example's row runs as `workers` ranks (the example's count unless
        given), its train cell in a launch of its own, the two outputs merged."""
        if not self.data_parallel:
            return self.one(fw, inputs, tag, change, train_cell)
        workers = workers or self.ranks
        outcome = self.one(fw, inputs, tag, change, False, workers)
        if not (train_cell and self.spec.steps) or outcome["status"] != Outcome.OK:
            return outcome
        cell = self.one(fw, inputs, tag, change, True, workers)
        if cell["status"] != Outcome.OK:
            return cell
        return {**outcome, "arrays": {**outcome["arrays"], **{name: value for name, value in cell["arrays"].items()
                                                     if name.startswith("cell/")}},
                "seconds": outcome["seconds"] + cell["seconds"],
                "ranks_differ": max(outcome["ranks_differ"], cell["ranks_differ"])}

    def one(self, fw: Framework, inputs: dict, tag: str, change: str = "", train_cell: bool = False,
            workers: int = 1) -> dict:
        tag = f"{tag}-{workers}w" + ("-cell" if train_cell else "") if self.data_parallel else tag
        job_dir = self.jobs_dir / f"{next(self.jobs):02d}-{fw.name}-{tag}"
        cores = self.cores.get()
        try:
            key = self.run_key(fw, inputs, tag, change, train_cell, cores, workers) if fw.name in self.row_keys else ""
            folder = self.kept_dir / f"{fw.name}-{tag}-{hashlib.sha256(change.encode()).hexdigest()[:8]}"
            outcome = None if self.rerun or not key else self.kept(folder, key)
            if outcome is None:
                outcome = self.run_worker(fw, inputs, job_dir, change, train_cell, cores, workers)
                if key and outcome["status"] == Outcome.OK:
                    self.keep(folder, key, job_dir, outcome)
        finally:
            self.cores.put(cores)
        self.log(f"  equivalence: {fw.name} ({tag}{', ' + self.part if self.part else ''}): {outcome['status']}"
                 + (", kept from the last check (nothing it depends on changed)" if outcome.get("kept") else
                    f" in {outcome['seconds']:.1f} s" if outcome["status"] == Outcome.OK else f": {outcome['reason']}"))
        return outcome


def candidates_of(example: Example, frameworks: list[Framework]) -> list[Framework]:
    return [fw for fw in frameworks if example.snippet_path(fw).exists()]


def job(context: RunContext, example: Example, selected: bool) -> Job | None:
    """The example's equivalence check as a job (jobs.py), when it has checks: measured again, when selected,
    once anything it depends on has changed."""
    if not has_checks(example):
        return None
    candidates = candidates_of(example, list(context.frameworks))
    return Job(store.CHECK, "equivalence", example.name,
               store.CHECK.path(context.project.results, context.machine, context.profile, example.name), selected,
               key=lambda: cache_key(context.project, example, candidates, context.envs, context.profile,
                                     context.machine),
               run=lambda key: (check(context, example, candidates, key), None),
               doing=f"checking the equivalence of {example.name}",
               describe=lambda result, seconds: f"{'passed' if result['passed'] else 'FAILED'} in {seconds:.1f} s")


def check(context: RunContext, example: Example, candidates: list[Framework], key: str) -> dict:
    """Run every row's workers and compare every pair (and each row checked on its own sizes against its other
    side, at the same time): the check's result."""
    project, profile, envs, log = context.project, context.profile, context.envs, context.log
    spec = load_spec(project, example, profile)
    seed = settings(example.name, profile, snippets=project.snippets).as_dict().get("seed", 0)
    inputs = {"weights": neutral.initial_weights(spec, seed), "batches": neutral.batches(spec, seed)}
    per_framework, runnable = {}, []
    for fw in candidates:
        env = envs.get(fw.name)
        if env is None or not env.ok:
            per_framework[fw.name] = {"status": Outcome.NOT_INSTALLED,
                                      "reason": env.reason if env else "no environment"}
        elif not adapter_path(example, fw).exists():
            per_framework[fw.name] = {"status": Outcome.NO_ADAPTER,
                                      "reason": f"no {adapter_path(example, fw).relative_to(project.root)}"}
        else:
            runnable.append(fw)
    row_keys = {fw.name: row_key(project, example, fw, envs[fw.name], spec, profile, context.machine)
                for fw in runnable}
    # A data-parallel example's rows run one at a time: each run's ranks take a core of their own.
    workers = 1 if model.example_workers(example) > 1 else parallel_workers(context.machine_info,
                                                                        context.variables.check_workers)
    run = Runner(context, example, spec, workers, row_keys)
    own = {row: sized for row, sized in own_sizes(example, spec, profile).items()
           if any(fw.name == row for fw in candidates)}
    main = [fw for fw in candidates if fw.name not in own]
    # The main check and each own-sized one at the same time, their runs sharing the CPU groups.
    measured, *own_measured = in_parallel(
        [lambda: comparison.measure(spec, run, main, per_framework, inputs, seed,
                                    lambda tasks: in_parallel(tasks, workers))]
        + [lambda sized=sized: measure_own_sizes(context, example, sized, candidates, per_framework, run, seed)
           for sized in own.values()], 1 + len(own))
    per_framework, failures = measured["frameworks"], measured["failures"]
    for sized, result in zip(own.values(), own_measured):
        per_framework[sized.row] = result["frameworks"].pop(sized.row)
        failures += [f"{sized.row}, on its own sizes: {failure}" for failure in result["failures"]]
    against_one = None
    if run.ranks > 1:
        ran = [fw for fw in runnable if fw.name in measured["outputs"]]
        alone = in_parallel([lambda fw=fw: run(fw, inputs, "one-worker", workers=1) for fw in ran], workers)
        against_one = comparison.against_one_worker(
            spec, run.ranks, {fw.name: per_framework[fw.name] for fw in ran}, measured["outputs"],
            {fw.name: outcome for fw, outcome in zip(ran, alone)})
        failures += against_one.pop("failures")
    for fw in runnable:
        packages = {**envs[fw.name].fingerprint.get("packages", {}), "python": envs[fw.name].fingerprint.get("python")}
        per_framework[fw.name]["versions"] = results.key_packages(fw, packages)
    for failure in failures:
        log(f"  equivalence FAILED: {failure}")
    return {"api_version": store.CHECK.api_version, "example": example.name, "profile": profile,
            "machine": context.machine, "machine_label": results.machine_label(context.machine_info),
            "cache_key": key, "date": results.now(), "seed": seed, "steps": spec.steps, "batch_size": spec.batch_size,
            "forward_batch": spec.forward_batch, "overrides": spec.overrides, "tolerance": spec.tolerance,
            "conventions": list(spec.conventions), "notes": measured["notes"], "noise_floor": measured["noise_floor"],
            "operations": measured["operations"],
            "tensors": [{"name": t.name, "shape": list(t.shape)} for t in spec.tensors],
            "frameworks": per_framework, **measured["compared"], "workers": against_one,
            "own_sizes": {sized.row: {k: v for k, v in result.items() if k != "failures"}
                          for sized, result in zip(own.values(), own_measured)},
            "failures": failures, "passed": not failures and len(measured["outputs"]) >= 2}


def measure_own_sizes(context: RunContext, example: Example, sized: OwnSizes, candidates: list[Framework],
                      skipped: dict, beside: Runner, seed: int) -> dict:
    """One row on its own steps and batches, and its other side run again on them: the same comparisons as the
    main check's (comparison.measure, which also measures the rounding floor at these sizes). Its runs take the
    main check's CPU groups as they come free (`beside`)."""
    project, by_name = context.project, {fw.name: fw for fw in candidates}
    pair = [by_name[name] for name in (sized.against, sized.row) if name in by_name]
    inputs = {"weights": neutral.initial_weights(sized.spec, seed), "batches": neutral.batches(sized.spec, seed)}
    keys = {fw.name: row_key(project, example, fw, context.envs[fw.name], sized.spec, context.profile,
                             context.machine) for fw in pair if fw.name not in skipped}
    run = Runner(context, example, sized.spec, 1, keys, beside=beside, part=f"own-{sized.row}")
    measured = comparison.measure(sized.spec, run, pair, {fw.name: skipped[fw.name] for fw in pair
                                                          if fw.name in skipped},
                                  inputs, seed, lambda tasks: in_parallel(tasks, len(pair)))
    if sized.row in measured["outputs"] and sized.against not in measured["outputs"]:     # (the row's own
        measured["failures"].append(f"its other side, {sized.against}, did not run")   # failure is said already)
    return {"against": sized.against, "why": sized.why, "steps": sized.spec.steps, "batch_size": sized.spec.batch_size,
            "forward_batch": sized.spec.forward_batch, "frameworks": measured["frameworks"],
            "noise_floor": measured["noise_floor"], **measured["compared"], "failures": measured["failures"]}
