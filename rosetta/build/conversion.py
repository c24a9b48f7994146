"""Conversion stage: each row's model exported to ONNX, run in ONNX Runtime, and brought back into PyTorch.

For an example with ``snippets/<example>/onnx/`` (one export tab per row or program, named as its snippet)
and an equivalence spec, each row's worker (``conversion_worker``, in that row's environment) builds the
snippet's model with the equivalence checks' neutral weights, computes its own logits of their forward batch
and runs the row's export tab. One worker in the environment that has ONNX Runtime and onnx2torch
(``onnx_check_worker``, RUNTIME_ROW's) then reads every file written: its opset and operators, ONNX Runtime's
outputs, and those of the PyTorch module onnx2torch makes of it. Each is compared here with the framework's own
logits under the equivalence checks' logits tolerance (weights.toml), as a pair of tabs is.

An export that raises is a result ("refused", with the exporter's message), as is a file that ONNX Runtime or
onnx2torch refuses; only a row whose own snippet steps fail, or whose worker dies, has failed.

The record lives in results/<machine>/<profile>/_conversion/<example>.json; the .onnx files beside it, in
_conversion/<example>/<row>.onnx (not in the reference kept in git: ResNet-50's is 100 MB).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np

from .. import model, neutral
from ..conversion_worker import MODEL_FILE
from ..onnx_check_worker import WHOLE_FILE
from ..project import Example, Framework, Project, script_in
from ..settings import settings
from . import comparison, environments, equivalence, identity, jobs, results, store, workers
from .context import RunContext
from .jobs import Job
from .outcome import Outcome
from .snippets import SnippetError

FOLDER = "onnx"                          # snippets/<example>/onnx/
RUNTIME_ROW = "pytorch"                  # its environment has onnxruntime and onnx2torch (envs/pytorch.txt)
IMPORT_ROUTE = "onnx2torch"
EXPORTERS = ("tf2onnx", "jax2onnx", "onnxscript", "onnx")   # their versions join each row's provenance
CHECKER = "rosetta/onnx_check_worker.py"   # its check() runs each file (the page shows it)
WORKER_CODE = ("rosetta/neutral.py", "rosetta/equivalence_worker.py", "rosetta/step_runner.py",
               "rosetta/conversion_worker.py", "rosetta/onnx_check_worker.py", "rosetta/onnx_timing_worker.py",
               "rosetta/build/conversion.py")
TIMED_INFERENCE = "infer"                # an example whose timed step is inference gets ONNX Runtime's time too
TIMING_ROUNDS = 3                        # ONNX Runtime's passes over the benchmark's batches, per file

# How a row's conversion ended, besides the outcomes every stage shares (ok, failed, timeout, not-installed).
REFUSED = "refused"                      # the exporter raised: its message is the result
NOT_RUN = "not-run"                      # written, but ONNX Runtime refused to run it
DIFFERS = "differs"                      # ran, but not within the tolerance of the framework's own outputs


def tabs_folder(example: Example) -> Path:
    return example.folder / FOLDER


def has_conversions(example: Example) -> bool:
    return tabs_folder(example).is_dir() and equivalence.has_checks(example)


def tab_path(example: Example, fw: Framework | str) -> Path:
    return script_in(tabs_folder(example), fw)


def candidates_of(example: Example, frameworks: list[Framework]) -> list[Framework]:
    """The rows with a snippet and an export tab."""
    return [fw for fw in equivalence.candidates_of(example, frameworks) if tab_path(example, fw).exists()]


def exporter(fw: Framework) -> Framework:
    """The row as its export runs: in its export environment, with its own [variables] (KERAS_BACKEND)."""
    name = model.export_environment(fw)
    if not name:
        return fw
    return replace(fw, environment=name, environment_label=f"{fw.environment_label} (ONNX export)",
                   requirements=fw.requirements.with_name(f"{name}.txt"), install_first=(),
                   no_build_isolation=False, npm=(), kernel_argv=())


def export_env(envs: dict, fw: Framework):
    """The environment status of where a row's export runs (set up by stages.set_up)."""
    return envs.get(model.export_environment(fw) or fw.name)


def files_folder(results_root: Path, machine: str, profile: str, example: Example) -> Path:
    return results_root / machine / profile / store.CONVERSION.folder / example.name


def cache_key(project: Project, example: Example, candidates: list[Framework], envs: dict, profile: str,
              machine: str) -> str:
    """Every row's snippet, adapter, export tab and environment (and its export environment where it has one),
    the spec, the workers' code, the settings."""
    digest = hashlib.sha256()
    runtime = envs.get(RUNTIME_ROW)
    for fw in candidates:
        digest.update(fw.name.encode() + identity.snippet_identity(example.snippet_path(fw)).encode()
                      + identity.python_identity(tab_path(example, fw).read_text()).encode()
                      + file_bytes(equivalence.adapter_path(example, fw)))
        for env in [envs.get(fw.name), *([export_env(envs, fw)] if model.export_environment(fw) else [])]:
            digest.update(env.fingerprint_hash.encode() if env is not None and env.ok else b"-")
    digest.update((runtime.fingerprint_hash if runtime is not None and runtime.ok else "-").encode())
    for path in sorted(equivalence.spec_folder(example).glob("*.toml")):
        digest.update(path.name.encode() + hashlib.sha256(path.read_bytes()).digest())
    for entry in WORKER_CODE:
        digest.update(identity.python_identity((results.REPO_ROOT / entry).read_text()).encode())
    for part in (identity.definition_identity(example.folder / "example.toml"), results.snippet_side_hash(example),
                 profile, machine):
        digest.update(hashlib.sha256(part.encode()).digest())
    return digest.hexdigest()


def file_bytes(path: Path) -> bytes:
    return path.read_bytes() if path.exists() else b""


# --- running the workers ------------------------------------------------------------------------------

def export_row(context: RunContext, example: Example, fw: Framework, spec: neutral.Spec, inputs: dict,
               job_dir: Path, cores: tuple[int, ...]) -> dict:
    """One row's export worker: {status, reason, exported, message, seconds}."""
    shutil.rmtree(job_dir, ignore_errors=True)
    job_dir.mkdir(parents=True)
    try:
        code, _ = equivalence.step_codes(example, example.snippet_path(fw))
    except SnippetError as exc:
        return {"status": Outcome.FAILED, "reason": str(exc)}
    (job_dir / "job.json").write_text(json.dumps({
        "snippet": str(example.snippet_path(fw)), "code": code, "adapter": str(equivalence.adapter_path(example, fw)),
        "export": str(tab_path(example, fw))}))
    neutral.save(job_dir / "weights.npz", inputs["weights"])
    neutral.save(job_dir / "batches.npz", inputs["batches"])
    run_dir = context.project.build / "run" / example.name         # outside snippets/: no self-import
    run_dir.mkdir(parents=True, exist_ok=True)
    exporting = exporter(fw)
    command = [*workers.pinned_to(cores), str(environments.venv_python(context.project, exporting)), "-P", "-m",
               "rosetta.conversion_worker", str(job_dir)]
    status, reason = workers.run_process(
        command, run_dir, workers.worker_environment(context.project, context.profile, exporting, spec, job_dir),
        job_dir / "log.txt")
    if status != Outcome.OK:
        return {"status": status, "reason": reason}
    return {"status": Outcome.OK, "reason": "", **json.loads((job_dir / "outcome.json").read_text())}


def check_files(context: RunContext, example: Example, spec: neutral.Spec, job_dirs: list[Path],
                folder: Path) -> tuple[str, str]:
    """The check worker over every file written, in RUNTIME_ROW's environment."""
    runtime = next(fw for fw in context.frameworks if fw.name == RUNTIME_ROW)
    command = [str(environments.venv_python(context.project, runtime)), "-P", "-m", "rosetta.onnx_check_worker",
               *map(str, job_dirs)]
    run_dir = context.project.build / "run" / example.name
    env = {**os.environ, **environments.child_variables(context.project, runtime)}
    return workers.run_process(command, run_dir, env, folder / "check-log.txt")


def time_files(context: RunContext, example: Example, rows: list[str], work: Path, folder: Path) -> dict:
    """ONNX Runtime's inference time for each row's file, over the benchmark's own batches at this profile
    (its batch size and number of batches), in one process that runs alone: these are timed."""
    hp = settings(example.name, context.profile, snippets=context.project.snippets).as_dict()
    spec = {"files": {row: str(work / row) for row in rows}, "batch_size": hp["batch_size"],
            "batches": hp.get("batches", 1), "rounds": TIMING_ROUNDS, "seed": hp.get("seed", 0)}
    store.write_json(work / "timing-spec.json", spec)
    runtime = next(fw for fw in context.frameworks if fw.name == RUNTIME_ROW)
    command = [str(environments.venv_python(context.project, runtime)), "-P", "-m", "rosetta.onnx_timing_worker",
               str(work / "timing-spec.json")]
    env = {**os.environ, **environments.child_variables(context.project, runtime)}
    status, reason = workers.run_process(command, context.project.build / "run" / example.name, env,
                                             folder / "timing-log.txt")
    if status != Outcome.OK:
        return {"status": status, "reason": reason}
    timing = json.loads((work / "timing.json").read_text())
    per_row = {row: {"seconds": values, "images_per_second": timing["images"] / float(np.median(values))}
               for row, values in timing["seconds"].items()}
    return {"status": Outcome.OK, "rows": per_row, "skipped": timing["skipped"], "threads": timing["threads"],
            "images": timing["images"],
            "batch_size": spec["batch_size"], "batches": spec["batches"], "rounds": TIMING_ROUNDS,
            "onnxruntime": timing["onnxruntime"], "timing": "monotonic clock around each pass over the batches, "
            "after one warm-up batch (rosetta/onnx_timing_worker.py)"}


# --- judging ---------------------------------------------------------------------------------------------

def judged(spec: neutral.Spec, own: np.ndarray, outputs: dict, found: dict) -> dict:
    """A written file's verdicts: ONNX Runtime's outputs and the imported module's, each against the
    framework's own logits (max |a - b|, the equivalence checks' measure) under the logits tolerance."""
    tolerance = spec.tolerance["logits"]
    row = {"opset": found["opset"], "opsets": found["opsets"], "operators": found["operators"],
           "checker": found["checker"], "producer": found["producer"], "tolerance": tolerance}
    for side, message_key, output in (("runtime", "runtime", "ort"), ("import", "import", "torch")):
        if found[message_key]:
            row[side] = {"status": NOT_RUN if side == "runtime" else REFUSED, "message": found[message_key]}
            continue
        difference = comparison.logits_difference(spec, outputs[output], own)
        row[side] = {"status": Outcome.OK if difference <= tolerance else DIFFERS, "difference": difference}
    row["status"] = row["runtime"]["status"]
    return row


def convert(context: RunContext, example: Example, candidates: list[Framework], key: str) -> dict:
    """Every row's export, then one check of every file written: the conversion's record."""
    project, profile, envs, log = context.project, context.profile, context.envs, context.log
    spec = equivalence.load_spec(project, example, profile)
    seed = settings(example.name, profile, snippets=project.snippets).as_dict().get("seed", 0)
    inputs = {"weights": neutral.initial_weights(spec, seed), "batches": neutral.batches(spec, seed)}
    work = project.build / "conversion" / example.name
    kept = files_folder(project.results, context.machine, profile, example)
    shutil.rmtree(kept, ignore_errors=True)
    kept.mkdir(parents=True)
    rows, runnable = {}, []
    for fw in candidates:
        env = export_env(envs, fw)
        if env is None or not env.ok:
            rows[fw.name] = {"status": Outcome.NOT_INSTALLED, "reason": env.reason if env else "no environment"}
        elif not equivalence.adapter_path(example, fw).exists():
            rows[fw.name] = {"status": Outcome.NO_ADAPTER, "reason": "no equivalence adapter to load the weights"}
        else:
            runnable.append(fw)
    at_once = jobs.parallel_workers(context.machine_info, context.variables.check_workers)
    cores = workers.core_groups(at_once)

    def task(index: int, fw: Framework):
        return lambda: export_row(context, example, fw, spec, inputs, work / fw.name, cores[index % len(cores)])

    # Two at a time on a CPU machine, each on its own core (as the equivalence workers): nothing here is timed.
    for fw, exported in zip(runnable, workers.in_parallel(
            [task(i, fw) for i, fw in enumerate(runnable)], at_once)):
        rows[fw.name] = exported
        words = (f"exported in {exported['seconds']:.1f} s" if exported.get("exported") else
                 f"export refused: {exported['message']}" if exported["status"] == Outcome.OK else
                 f"{exported['status']}: {exported['reason']}")
        log(f"  conversion: {fw.name}: {words}")
    written = [fw for fw in runnable if rows[fw.name].get("exported")]
    check = (Outcome.OK, "")
    if written:
        runtime_env = envs.get(RUNTIME_ROW)
        check = (check_files(context, example, spec, [work / fw.name for fw in written], kept)
                 if runtime_env is not None and runtime_env.ok else
                 (Outcome.NOT_INSTALLED, f"the {RUNTIME_ROW} environment (ONNX Runtime, {IMPORT_ROUTE}) is not set up"))
    for fw in runnable:
        row, folder = rows[fw.name], work / fw.name
        if row["status"] != Outcome.OK:
            continue
        if not row["exported"]:
            row.update(status=REFUSED)
            continue
        found = json.loads((folder / "check.json").read_text()) if check[0] == Outcome.OK else {}
        # Weights written beside the file (external data) are kept inside it: one file, as the others.
        written = folder / (WHOLE_FILE if found.get("external_data") else MODEL_FILE)
        shutil.copyfile(written, kept / f"{fw.name}.onnx")
        row.update(file=f"{fw.name}.onnx", bytes=written.stat().st_size, external_data=found.get("external_data", []))
        if check[0] != Outcome.OK:
            row.update(status=check[0], reason=f"the check of the files: {check[1]}")
            continue
        own = neutral.load(folder / "out.npz")["logits"]
        row.update(judged(spec, own, neutral.load(folder / "check.npz"), found))
        row["versions"] = found["versions"]
        log(f"  conversion: {fw.name}: ONNX Runtime {row['runtime']['status']}"
            + (f" (max |difference| {row['runtime']['difference']:.2g})" if "difference" in row["runtime"] else "")
            + f", {IMPORT_ROUTE} {row['import']['status']}")
    ran = [fw.name for fw in runnable if rows[fw.name]["status"] == Outcome.OK]
    timing = None
    if example.timed_step == TIMED_INFERENCE and ran:
        timing = time_files(context, example, ran, work, kept)
        log(f"  conversion: ONNX Runtime timed on {len(ran)} files: {timing['status']}")
    for fw in runnable:
        env = export_env(envs, fw)
        packages = {**env.fingerprint.get("packages", {}), "python": env.fingerprint.get("python")}
        rows[fw.name]["exporter_versions"] = {**results.key_packages(fw, packages),
                                              **{name: packages[name] for name in EXPORTERS if name in packages}}
        if model.export_environment(fw):
            rows[fw.name]["export_environment"] = model.export_environment(fw)
    return {"api_version": store.CONVERSION.api_version, "example": example.name, "profile": profile,
            "machine": context.machine, "machine_label": results.machine_label(context.machine_info),
            "cache_key": key, "date": results.now(),
            "seed": seed, "forward_batch": spec.forward_batch, "tolerance": spec.tolerance["logits"],
            "relative": bool(spec.tolerance.get("relative")),
            "runtime_row": RUNTIME_ROW, "import_route": IMPORT_ROUTE, "frameworks": rows, "timing": timing}


def job(context: RunContext, example: Example, selected: bool) -> Job | None:
    """The example's conversions as a job (jobs.py): run again, when selected, once anything they depend on
    has changed."""
    if not has_conversions(example):
        return None
    candidates = candidates_of(example, list(context.frameworks))
    return Job(store.CONVERSION, "conversion", example.name,
               store.CONVERSION.path(context.project.results, context.machine, context.profile, example.name), selected,
               key=lambda: cache_key(context.project, example, candidates, context.envs, context.profile,
                                     context.machine),
               run=lambda key: (convert(context, example, candidates, key), None),
               doing=f"exporting {example.name} to ONNX",
               describe=lambda result, seconds: f"{through(result)} of {len(result['frameworks'])} rows through ONNX "
                                                f"Runtime in {seconds:.1f} s")


def through(record: dict) -> int:
    """How many rows' files ran in ONNX Runtime within the tolerance of their framework's own outputs."""
    return sum(row["status"] == Outcome.OK for row in record["frameworks"].values())
