"""The benchmark rows of an example as jobs (jobs.py): each framework's snippet, executed --repeats times in
its kernel, with its step times, its reported metrics and the derived throughput.
"""
from __future__ import annotations

from pathlib import Path

import nbformat

from .. import model
from ..project import Example, Framework, Project, expand
from ..settings import Settings, with_overrides
from . import environments, ranks, results, store
from .context import RunContext
from .execute import execute
from .jobs import Blocked, Data, Job, side_by_side
from .outcome import Outcome
from .phases import CLOCK
from .signals import doing
from .snippets import check_alignment, load_example_snippets


def profile_data(example: Example, profile: str) -> str:
    return example.profiles.get(profile, {}).get("data", "real")


def data_identity(example: Example, profile: str) -> str:
    return results.data_identity(example.data_module, profile_data(example, profile))


def run_settings(context: RunContext, example: Example, row: str | None = None) -> Settings:
    """The settings a run of the example reads, resolved as rosetta.settings resolves them in its kernel (the
    row's sizes, ROSETTA_OVERRIDES, ROSETTA_WEIGHTS), from the Example in hand: part of each row's cache key."""
    values = with_overrides(example.name, {**example.hyperparameters, **example.sizes(context.profile, row)})
    if "weights" in values:
        values["weights"] = context.variables.weights or values["weights"]
    return Settings(example.name, context.profile, values)


def not_run(context: RunContext, example: Example, fw: Framework, status: Outcome, reason: str) -> dict:
    return {"api_version": store.BENCHMARK.api_version, "example": example.name, "framework": fw.name,
            "label": fw.label, "api": fw.api, "machine": context.machine,
            "machine_label": results.machine_label(context.machine_info), "profile": context.profile,
            "sizes": example.sizes(context.profile, fw.name), "status": status, "reason": reason,
            "error": None, "steps": {}, "metrics": {}, "runs": [], "notebook": None,
            "cache_key": None, "provenance": {"date": results.now()}}


def derived_metrics(example: Example, metrics: dict, steps: dict) -> dict:
    """Throughput of the timed step (samples/s) and, like the original's inference table, s per 1,000."""
    timed, samples = steps.get(example.timed_step), metrics.get(example.samples_metric)
    if not (timed and samples and timed["median"] > 0):
        return {}
    return {"throughput": samples / timed["median"], "seconds_per_1000": 1000 * timed["median"] / samples}


def write_working_files(project: Project, fw: Framework, folder: Path) -> None:
    """The files a row's kernel finds in its working folder (Deno's import map), placeholders expanded."""
    for name, text in fw.working_files.items():
        (folder / name).write_text(expand(text, environments.venv_folder(project, fw)))


def deno_run(project: Project, fw: Framework, folder: Path, *args: str) -> list[str]:
    """The command that runs a JavaScript program outside a kernel as the row's kernel would: the row's Deno,
    with the import map write_working_files put in folder (the equivalence worker, a plain twin)."""
    deno = environments.venv_folder(project, fw) / "bin" / "deno"
    config = ["--config", str(folder / "deno.json")] if (folder / "deno.json").exists() else []
    return [str(deno), "run", "--allow-all", "--quiet", *config, *args]


def run_once(context: RunContext, example: Example, fw: Framework, snippet, kernel_env: dict, run_dir: Path,
             workers: int | None = None):
    """One run of a row: one kernel, or a data-parallel example's workers (ranks.py), the tab rank 0's; `workers`
    runs a data-parallel program on another number of workers (1: one process on every core)."""
    if model.example_workers(example) == 1:
        return execute(snippet, fw.kernel_name, kernel_env, run_dir, context.options.timeout, fw.kernel_transport)
    workers = workers or ranks.workers_here(example, context.machine_info)
    plan = ranks.Plan(ranks.launch_of(fw, workers), str(environments.venv_python(context.project, fw)), kernel_env,
                      run_dir)
    job = ranks.run(snippet, fw.kernel_name, plan, context.options.timeout, fw.kernel_transport)
    return ranks.merged(job)


def executions(context: RunContext, example: Example, fw: Framework, snippet,
               workers: int | None = None) -> tuple[list[dict], object]:
    """The snippet run --repeats times, one after another (stopping at the first that does not succeed)."""
    project, repeats = context.project, context.options.repeats
    # The kernel's cwd: outside snippets/ (no shadowing), one per row (rows may run side by side: jobs.side_by_side).
    run_dir = project.build / "run" / example.name / fw.name
    run_dir.mkdir(parents=True, exist_ok=True)
    write_working_files(project, fw, run_dir)
    kernel_env = environments.child_variables(project, fw, context.profile)
    runs, execution = [], None
    for repeat in range(repeats):
        alone = " as 1 process" if workers == 1 else ""
        doing(f"executing {example.name}/{fw.name}{alone} (run {repeat + 1} of {repeats})")
        context.log(f"  run {repeat + 1}/{repeats} of {example.name}/{fw.name}{alone} ({context.profile})")
        execution = run_once(context, example, fw, snippet, kernel_env, run_dir, workers)
        for note in execution.notes:                 # (a kernel that died as it started, started again)
            context.log(f"  {note}")
        if side_by_side(context) == 1:       # (side by side, the stage's wall time is its phase)
            CLOCK.add(f"{example.name}: kernel start-ups", execution.kernel_seconds)
            CLOCK.add(f"{example.name}: snippets", execution.wall_seconds - execution.kernel_seconds)
        runs.append({"steps": execution.step_seconds, "metrics": execution.metrics,
                     "wall_seconds": round(execution.wall_seconds, 3), "status": execution.status})
        if execution.status != Outcome.OK:
            break
    return runs, execution


def summary(example: Example, runs: list[dict], execution) -> tuple[list[dict], dict, dict]:
    """The runs that succeeded (all, when none did), each step's times over them, and the metrics."""
    ok_runs = [run for run in runs if run["status"] == Outcome.OK] or runs
    steps = {}
    for step in example.steps:
        values = [run["steps"][step] for run in ok_runs if step in run["steps"]]
        if values:
            steps[step] = results.summarise(values)
    metrics = dict(execution.metrics)
    if execution.status == Outcome.OK:
        metrics.update(derived_metrics(example, metrics, steps))
    return ok_runs, steps, metrics


def one_process(context: RunContext, example: Example, fw: Framework, snippet) -> dict:
    """A data-parallel row's program as 1 process on all the cores its N workers shared, timed after them (timed
    runs never overlap): what the N-worker figure is measured against. On one machine the difference is the
    cost of splitting the work (communication, smaller batches per process), not a speed-up."""
    runs, execution = executions(context, example, fw, snippet, workers=1)
    ok_runs, steps, metrics = summary(example, runs, execution)
    return {"status": execution.status, "steps": steps, "metrics": metrics, "runs": runs, "repeats": len(ok_runs),
            **({"reason": f"{execution.error['ename']}: {execution.error['evalue']}".strip()}
               if execution.status != Outcome.OK else {})}


def run_row(context: RunContext, example: Example, fw: Framework, snippet, data: Data, key: str) -> tuple[dict, str]:
    """Execute one row and build its result (and the notebook of its last run)."""
    runs, execution = executions(context, example, fw, snippet)
    ok_runs, steps, metrics = summary(example, runs, execution)
    env, profile = context.envs[fw.name], context.profile
    packages = env.fingerprint.get("packages", {})
    result = not_run(context, example, fw, execution.status, "")
    result.update({
        "error": execution.error, "steps": steps, "metrics": metrics, "runs": runs,
        "notebook": f"{fw.name}.ipynb", "cache_key": key,
        "provenance": {
            "date": results.now(),
            "framework_versions": results.key_packages(fw, {**packages, "python": env.fingerprint.get("python")}),
            "environment_sha256": env.fingerprint_hash,
            "machine": context.machine_info,
            "profile": profile, "sizes": example.sizes(profile, fw.name),
            "hyperparameters": example.hyperparameters,
            "data_source": execution.context.get("data_source", data.info.get("source", "")),
            "weights": execution.context.get("weights", example.weights),
            "seed": example.hyperparameters.get("seed"),
            "repeats": len(ok_runs),
            "snippet": results.snippet_commit(example.snippet_path(fw)),
            "code": results.example_code(example, fw),
            "repository": results.repository_commit(),
            "timing": "nbclient cell timestamps (execute_input to execute_reply), summed per step",
            "side_by_side": side_by_side(context),     # snippets running at once (more than one: measures nothing)
            "workers": ranks.workers_here(example, context.machine_info),   # a data-parallel row's processes
        },
    })
    if execution.status != Outcome.OK:
        result["reason"] = f"{execution.error['ename']}: {execution.error['evalue']}".strip()
    elif ranks.workers_here(example, context.machine_info) > 1:
        result["one_process"] = one_process(context, example, fw, snippet)
    return result, nbformat.writes(execution.notebook)


def row_key(context: RunContext, example: Example, fw: Framework, data: Data) -> str:
    inputs = results.RunInputs(context.options.repeats, run_settings(context, example, fw.name).as_dict(),
                               data.identity())
    return results.cache_key(example, fw, context.envs[fw.name].fingerprint_hash, context.profile, context.machine,
                             inputs)


def jobs(context: RunContext, example: Example, selected: frozenset[str]) -> list[Job]:
    """One job per framework with a snippet for the example; `selected`: the rows measured where stale."""
    snippets = load_example_snippets(example, list(context.frameworks))
    parsed = list({id(s): s for s in snippets.values() if not isinstance(s, Exception)}.values())
    misaligned = {}
    for problem in check_alignment(example, parsed, list(context.frameworks)):
        context.log(f"  alignment: {problem}")
        misaligned.setdefault(Path(problem.split(":")[0]), problem)
    profile = context.profile
    data = Data(example.data_module, profile_data(example, profile), profile_data(example, profile) != "synthetic",
                lambda: run_settings(context, example), f"{example.name}: data")
    found = []
    for fw in context.frameworks:
        if fw.name not in snippets:
            continue
        snippet, env = snippets[fw.name], context.envs.get(fw.name)
        blocked = None
        if isinstance(snippet, Exception) or snippet.path in misaligned:
            blocked = Blocked(Outcome.SNIPPET_ERROR,
                              str(snippet) if isinstance(snippet, Exception) else misaligned[snippet.path])
        elif env is None or not env.ok:
            blocked = Blocked(Outcome.NOT_INSTALLED, env.reason if env else "environment not set up",
                              keep_previous=True)
        elif (problem := ranks.launch_problem(example, fw)):
            blocked = Blocked(Outcome.SNIPPET_ERROR, problem)
        found.append(Job(
            store.BENCHMARK, f"{example.name}/{fw.name}", fw.name,
            store.BENCHMARK.path(context.project.results, context.machine, profile, example.name, fw.name),
            fw.name in selected, key=lambda fw=fw: row_key(context, example, fw, data),
            run=lambda key, fw=fw, snippet=snippet: run_row(context, example, fw, snippet, data, key),
            not_run=lambda status, reason, fw=fw: not_run(context, example, fw, status, reason),
            blocked=blocked, data=data))
    return found
