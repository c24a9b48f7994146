#!/usr/bin/env python3
"""Is a tab as fast as the same model in a plain script? Each snippet's timed step, measured three ways.

    .envs/docs/bin/python benchmarks/fairness.py [--examples cnn_cifar10] [--frameworks tensorflow]
        [--repeats 3] [--profile cpu] [--set train_images=2560] [--variants kernel,script,plain]

For every (example, framework), strictly one run at a time, each repeat runs every variant once
(the order rotates from repeat to repeat, so that none is always first):
  kernel  the snippet in its Jupyter kernel, exactly as the build runs it: the timed step's cell time
  script  the snippet's own steps without a kernel (rosetta.step_runner in the framework's venv)
  plain   benchmarks/plain/<example>/<framework>.py: the same work written as a plain script (a JavaScript
          row's, <framework>.js, run by its venv's Deno with the import map its kernel has; such a row has
          no script variant: rosetta.step_runner is Python)
  plain@<name>  benchmarks/plain/<example>/<program>@<name>.py, where there is one: the same work
          written another way a user of that framework would (JAX without Flax: pure functions under
          jax.jit), run with the plain variant; plain/plain@<name> is what the plain twin's way costs
kernel/script is what the notebook kernel costs, script/plain what the snippet's code costs. All
three get the same environment variables (plus the caller's ROSETTA_DATA and ROSETTA_WEIGHTS).
Results are printed and merged into benchmarks/fairness/<machine>-<profile>.json, one entry per
pair, with the identity of the snippet and of the plain script (their substance, see
rosetta/build/identity.py) so a page can tell a stale ratio.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402

from rosetta import model  # noqa: E402
from rosetta.build import environments, identity, results, variables  # noqa: E402
from rosetta.build.benchmark import deno_run, write_working_files  # noqa: E402
from rosetta.build.execute import execute  # noqa: E402
from rosetta.build.snippets import parse  # noqa: E402
from rosetta.project import Example, Framework, Project, UsageError, check_name, resolve_profile  # noqa: E402

API_VERSION = results.FAIRNESS_FORMAT
VARIANTS = ("kernel", "script", "plain")
RATIOS = (("kernel", "plain"), ("kernel", "script"), ("script", "plain"))
TOLERANCE = 0.10
PLAIN = ROOT / "benchmarks" / "plain"
OUTPUT = ROOT / results.FAIRNESS_FOLDER
TIMING = {"kernel": "nbclient cell timestamps of the timed step (as the build)",
          "script": "perf_counter around the timed step's code (rosetta.step_runner)",
          "plain": "perf_counter in the plain script, after synchronising",
          "plain@": "perf_counter in the other plain script, after synchronising"}
ALTERNATIVE = "plain@"


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", help="comma-separated example names (default: all)")
    parser.add_argument("--frameworks", help="comma-separated framework names (default: all)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of every variant (median, min, max)")
    parser.add_argument("--profile", default="cpu", help="smoke, cpu or full (default: cpu)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="sets",
                        help="override a setting in all three variants (repeatable; VALUE is read as JSON "
                             "when it parses); applied to the examples that have it")
    parser.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated subset of {VARIANTS}")
    parser.add_argument("--timeout", type=int, default=3600, help="seconds one run may take")
    parser.add_argument("--table", action="store_true",
                        help="measure nothing: print the table of what this machine has on record for the selection")
    return parser.parse_args(argv)


def names(kind: str, given: str | None, known: list[str]) -> list[str]:
    wanted = [check_name(kind, name.strip(), known) for name in given.split(",") if name.strip()] if given else known
    return [name for name in known if name in wanted]


def parse_sets(items: list[str]) -> dict:
    overrides = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not (sep and name.strip()):
            raise UsageError(f"--set {item!r}: write NAME=VALUE")
        try:
            overrides[name.strip()] = json.loads(value)      # 2560 -> int, false -> bool
        except json.JSONDecodeError:
            overrides[name.strip()] = value
    return overrides


def known_settings(example: Example, profile: str, row: str | None = None) -> dict:
    """The example's settings at the profile, with the row's own sizes where it has some ([row_sizes])."""
    return {**example.hyperparameters, **example.sizes(profile, row)}


def log(message: str) -> None:
    print(message, flush=True)


# --- one run of one variant ------------------------------------------------------------------------

class RunFailed(Exception):
    """A run that ended without its time; the message is the line recorded for it."""


class Pair:
    """One (example, framework) and what its runs share: environment, folders, the venv's Python."""

    def __init__(self, project: Project, example: Example, fw: Framework, profile: str, overrides: dict,
                 timeout: int):
        self.project, self.example, self.fw, self.timeout = project, example, fw, timeout
        self.python = str(environments.venv_python(project, fw))
        # The build's kernel cwd (no self-import); a JavaScript row's, as the build's, its own, with its import map.
        self.run_dir = project.build / "run" / example.name / (fw.name if fw.language != "python" else "")
        self.work = project.build / "fairness" / example.name / fw.name   # jobs, logs, the last notebook
        self.env = environments.child_variables(project, fw, profile, ROSETTA_OVERRIDES=json.dumps(overrides),
                                                TF_CPP_MIN_LOG_LEVEL="2")
        for folder in (self.run_dir, self.work):
            folder.mkdir(parents=True, exist_ok=True)
        write_working_files(project, fw, self.run_dir)

    @property
    def variants(self) -> tuple[str, ...]:
        """The variants this row has: a JavaScript row no script one (rosetta.step_runner runs Python)."""
        return VARIANTS if self.fw.language == "python" else tuple(v for v in VARIANTS if v != "script")

    def plain_command(self, path: Path) -> list[str]:
        if self.fw.language == "python":
            return [self.python, "-P", str(path)]
        return deno_run(self.project, self.fw, self.run_dir, str(path))

    @property
    def snippet_path(self) -> Path:
        return self.example.snippet_path(self.fw)

    @property
    def plain_path(self) -> Path:
        return self.fw.script(PLAIN / self.example.name)

    @property
    def alternatives(self) -> dict[str, Path]:
        """The other plain twins of this program: variant name (plain@<name>) -> file."""
        found = sorted((PLAIN / self.example.name).glob(f"{self.fw.program}@*{self.fw.suffix}"))
        return {ALTERNATIVE + path.stem.partition("@")[2]: path for path in found}

    def plain_file(self, variant: str) -> Path:
        return self.plain_path if variant == "plain" else self.alternatives[variant]

    def run(self, variant: str, command: list[str]) -> subprocess.CompletedProcess:
        done = subprocess.run(command, cwd=self.run_dir, env={**os.environ, **self.env}, capture_output=True,
                              text=True, timeout=self.timeout)
        (self.work / f"{variant}.log").write_text(f"$ {' '.join(command)}\n{done.stdout}\n{done.stderr}")
        if done.returncode != 0:
            lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()] or ["(no output)"]
            raise RunFailed(f"exit status {done.returncode}: {lines[-1].strip()}")
        return done


def json_lines(text: str) -> list[dict]:
    found = []
    for line in text.splitlines():
        if line.startswith("{"):
            try:
                found.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return found


def run_kernel(pair: Pair) -> dict:
    execution = execute(parse(pair.snippet_path, pair.example), pair.fw.kernel_name, pair.env, pair.run_dir,
                        pair.timeout, pair.fw.kernel_transport)
    nbformat.write(execution.notebook, pair.work / "kernel.ipynb")
    if execution.status != "ok":
        error = execution.error
        raise RunFailed(f"{execution.status} in step {error.get('step')!r}: {error['ename']}: "
                           f"{(error['evalue'].strip().splitlines() or [''])[0]}")
    return {"seconds": execution.step_seconds[pair.example.timed_step],
            "samples": execution.metrics.get(pair.example.samples_metric)}


def run_script(pair: Pair) -> dict:
    snippet = parse(pair.snippet_path, pair.example)
    job, output = pair.work / "job.json", pair.work / "script-steps.json"
    output.unlink(missing_ok=True)
    job.write_text(json.dumps({"snippet": str(pair.snippet_path), "output": str(output),
                               "steps": [{"name": step.name, "code": step.code} for step in snippet.steps]}))
    done = pair.run("script", [pair.python, "-P", "-m", "rosetta.step_runner", str(job)])
    # Outside a kernel, report() prints its payload as a JSON line: the samples the snippet counted.
    reported = [line["metrics"] for line in json_lines(done.stdout) if "metrics" in line]
    return {"seconds": json.loads(output.read_text())["steps"][pair.example.timed_step],
            "samples": reported[-1].get(pair.example.samples_metric) if reported else None}


def run_plain(pair: Pair, variant: str = "plain") -> dict:
    path = pair.plain_file(variant)
    done = pair.run(variant, pair.plain_command(path))
    lines = [line for line in json_lines(done.stdout) if "timed_seconds" in line]
    if not lines:
        raise RunFailed(f"{path.name} printed no JSON line with timed_seconds")
    return {"seconds": lines[-1]["timed_seconds"], "samples": lines[-1].get("samples")}


RUNNERS = {"kernel": run_kernel, "script": run_script, "plain": run_plain}


def run_variant(pair: Pair, variant: str) -> dict:
    try:
        if variant.startswith(ALTERNATIVE):
            return {"status": "ok", **run_plain(pair, variant)}
        return {"status": "ok", **RUNNERS[variant](pair)}
    except subprocess.TimeoutExpired:
        return {"status": "failed", "error": f"no result within {pair.timeout} s"}
    except RunFailed as exc:
        return {"status": "failed", "error": str(exc)}
    except Exception as exc:      # any failure is this run's result, never the end of the others
        return {"status": "failed", "error": f"{type(exc).__name__}: {exc}"}


# --- summaries, comparison, the file ------------------------------------------------------------------

def summarise_runs(runs: list[dict]) -> dict:
    ok = [run for run in runs if run["status"] == "ok"]
    summary = {"status": "ok" if ok and len(ok) == len(runs) else "failed", "runs": [], "samples": None}
    if ok:
        summary.update(results.summarise([run["seconds"] for run in ok]))
        summary["samples"] = ok[-1]["samples"]
    failed = [run["error"] for run in runs if run["status"] != "ok"]
    if failed:
        summary["error"] = failed[-1]
    return summary


def verdict_of(ratio: float) -> str:
    if ratio > 1 + TOLERANCE:
        return "snippet >10 % slower"
    if ratio < 1 - TOLERANCE:
        return "snippet >10 % faster"
    return "within 10 %"


def compare(medians: dict[str, float]) -> dict:
    """Ratios of the variants' medians, and the verdict on the snippet (its kernel run, else its script) vs plain.
    Each other plain twin gets plain/plain@<name>: the plain twin's time over the other way's."""
    pairs = [*RATIOS, *(("plain", v) for v in medians if v.startswith(ALTERNATIVE))]
    ratios = {f"{a}/{b}": medians[a] / medians[b] for a, b in pairs if a in medians and b in medians}
    basis = next((key for key in ("kernel/plain", "script/plain") if key in ratios), None)
    return {"ratios": ratios, "verdict_basis": basis, "verdict": verdict_of(ratios[basis]) if basis else None}


def read_entries(path: Path) -> dict:
    """The entries already measured on this machine and profile; a file this harness cannot read stops it."""
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    if data.get("api_version") != API_VERSION:
        raise UsageError(f"{path}: format {data.get('api_version')!r}, this harness writes {API_VERSION}; "
                         "move it away to start a new one")
    return data["entries"]


def merge(path: Path, machine: str, profile: str, entries: dict) -> dict:
    """Write `entries` into the file, keeping the other (example, framework) pairs already there."""
    merged = {**read_entries(path), **entries}
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(".json.part")
    part.write_text(json.dumps({"api_version": API_VERSION, "machine": machine, "profile": profile,
                                "entries": dict(sorted(merged.items()))}, indent=1, sort_keys=True) + "\n")
    part.replace(path)
    return merged


def measure(project: Project, example: Example, fw: Framework, profile: str, overrides: dict, args,
            machine_info: dict) -> dict:
    pair = Pair(project, example, fw, profile, overrides, args.timeout)
    alternatives = pair.alternatives if "plain" in args.variants else {}
    order = [*(v for v in args.variants if v in pair.variants), *alternatives]
    runs: dict[str, list[dict]] = {variant: [] for variant in order}
    for repeat in range(args.repeats):
        shift = repeat % len(order)
        for variant in order[shift:] + order[:shift]:
            if any(run["status"] != "ok" for run in runs[variant]):
                continue                   # a failing variant fails again: do not wait for it twice
            started = time.perf_counter()
            run = run_variant(pair, variant)
            runs[variant].append(run)
            outcome = f"{run['seconds']:.2f} s" if run["status"] == "ok" else f"FAILED: {run['error']}"
            log(f"  {example.name}/{fw.name} run {repeat + 1}/{args.repeats} {variant:6}: {outcome} "
                f"(whole run {time.perf_counter() - started:.0f} s)")
    variants = {variant: summarise_runs(variant_runs) for variant, variant_runs in runs.items()}
    comparison = compare({v: s["median"] for v, s in variants.items() if s["status"] == "ok"})
    samples = {v: s["samples"] for v, s in variants.items() if s["samples"] is not None}
    fingerprint = environments.fingerprint(project, fw)
    versions = results.key_packages(fw, {**fingerprint["packages"], "python": fingerprint["python"]})
    settings = {**known_settings(example, profile, fw.name), **overrides}
    if "weights" in settings:
        settings["weights"] = variables.read().weights or settings["weights"]
    return {
        "example": example.name, "framework": fw.name, "label": fw.label, "timed_step": example.timed_step,
        "status": "ok" if all(s["status"] == "ok" for s in variants.values()) else "failed",
        "variants": variants, **comparison,
        # Different sample counts mean the variants did not do the same work: their ratio means nothing.
        "same_work": len(set(samples.values())) <= 1,
        "provenance": {
            "date": results.now(), "repeats": args.repeats, "variants": order,
            "order": "variants alternate within each repeat, rotating the first", "timing": TIMING,
            "profile": profile, "sizes": {k: settings[k] for k in example.profiles[profile]},
            "overrides": overrides, "settings": settings,
            "framework_versions": versions,
            "environment_sha256": environments.EnvStatus(fw.name, True, fingerprint=fingerprint).fingerprint_hash,
            "snippet_sha256": results.file_sha256(pair.snippet_path),
            "plain_sha256": results.file_sha256(pair.plain_path),
            # What a page compares (staleness.fairness_is_stale): a comment edit keeps the ratio current.
            "snippet_identity": identity.snippet_identity(pair.snippet_path),
            "plain_identity": identity.script_identity(pair.plain_path),
            # The other plain twins: their file, what they are (their docstring's first sentence), identity.
            "alternatives": {variant: {"file": str(path.relative_to(ROOT)), "about": about(path),
                                       "identity": identity.script_identity(path)}
                             for variant, path in alternatives.items()},
            "machine": machine_info,
        },
    }


def about(path: Path) -> str:
    """What another plain twin is: its docstring's first sentence."""
    text = " ".join((ast.get_docstring(ast.parse(path.read_text())) or "").split())
    return text.split(". ")[0].rstrip(".")


# --- the table ------------------------------------------------------------------------------------------

def cell(summary: dict | None) -> str:
    if summary is None:
        return "-"
    if summary["status"] != "ok":
        return "FAILED"
    return f"{summary['median']:.2f} ({summary['min']:.2f}-{summary['max']:.2f})"


def table(entries: list[dict]) -> str:
    header = ["example/framework", *(f"{v} s, median (min-max)" for v in VARIANTS),
              *(f"{a[0]}/{b[0]}" for a, b in RATIOS), "k max/min", "verdict"]
    rows = [header]
    for entry in entries:
        ratios = [entry["ratios"].get(f"{a}/{b}") for a, b in RATIOS]
        verdict = entry["verdict"] or "-"
        if entry["verdict_basis"] == "script/plain":
            verdict += " (script vs plain)"
        if not entry["same_work"]:
            verdict += "; samples differ: " + ", ".join(
                f"{v} {s['samples']}" for v, s in entry["variants"].items() if s["samples"] is not None)
        kernel = entry["variants"].get("kernel", {})
        spread = f"{kernel['max'] / kernel['min']:.2f}" if kernel.get("status") == "ok" else "-"
        rows.append([f"{entry['example']}/{entry['framework']}",
                     *(cell(entry["variants"].get(v)) for v in VARIANTS),
                     *("-" if r is None else f"{r:.2f}" for r in ratios), spread, verdict])
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    lines = ["  ".join(text.ljust(width) for text, width in zip(row, widths)) + "  " + row[-1] for row in rows]
    for entry in entries:
        for variant, summary in entry["variants"].items():
            if variant.startswith(ALTERNATIVE):
                ratio = entry["ratios"].get(f"plain/{variant}")
                lines.append(f"{entry['example']}/{entry['framework']} {variant}: {cell(summary)} s"
                             + (f", plain/{variant} {ratio:.2f}" if ratio else ""))
            if "error" in summary:
                lines.append(f"{entry['example']}/{entry['framework']} {variant}: {summary['error']}")
    return "\n".join(lines)


def main(argv=None) -> int:
    args = parse_args(argv)
    project = Project(root=ROOT)
    try:
        profile = resolve_profile(args.profile)
        examples = [project.example(name) for name in names("example", args.examples,
                                                             [ex.name for ex in project.examples()])]
        frameworks = [project.framework(name) for name in names("framework", args.frameworks,
                                                                [fw.name for fw in project.frameworks()])]
        args.variants = names("variant", args.variants, list(VARIANTS))
        overrides = parse_sets(args.sets)
        examples = [ex for ex in examples if profile in ex.profiles]
        unknown = [name for name in overrides if not any(name in known_settings(ex, profile) for ex in examples)]
        if unknown:
            raise UsageError(f"--set {', '.join(unknown)}: no selected example has such a setting")
        if args.repeats < 1:
            raise UsageError("--repeats must be at least 1")
        machine, machine_info = results.this_machine(project, variables.read().machine)
        path = OUTPUT / f"{machine}-{profile}.json"
        stored = read_entries(path)        # refuse an unreadable file now, not after an hour of measuring
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.table:
        keys = [f"{ex.name}/{fw.name}" for ex in examples for fw in frameworks]
        log(table([stored[key] for key in keys if key in stored]) + f"\n\nread from {path}")
        return 0
    log(f"machine {machine}, profile {profile}, {args.repeats} repeat(s) of {', '.join(args.variants)}")
    measured = []
    for example in examples:
        if model.example_workers(example) > 1:
            log(f"  {example.name}: skipped, its rows run as {model.example_workers(example)} worker processes: "
                "the harness times one process against its plain twin")
            continue
        example_overrides = {k: v for k, v in overrides.items() if k in known_settings(example, profile)}
        for fw in frameworks:
            if not example.snippet_path(fw).exists():
                continue                   # no such tab (the symbolic MXNet row has no ResNet-50)
            if fw.language != "python" and "script" in args.variants:
                log(f"  {example.name}/{fw.name}: no script variant, its snippet is {fw.language} "
                    "(rosetta.step_runner runs Python): its kernel and its plain twin")
            if not environments.is_current(project, fw):
                log(f"  {example.name}/{fw.name}: skipped, {project.venvs / fw.environment} is missing or out of date "
                    "(make envs)")
                continue
            try:
                entry = measure(project, example, fw, profile, example_overrides, args, machine_info)
            except (subprocess.CalledProcessError, OSError, json.JSONDecodeError) as exc:   # its venv broke
                log(f"  {example.name}/{fw.name}: not recorded, reading its environment failed: {exc}")
                continue
            merge(path, machine, profile, {f"{example.name}/{fw.name}": entry})   # after each pair: keep what is done
            measured.append(entry)
    log("\n" + table(measured))
    log(f"\nwritten to {path}")
    return 0 if all(entry["status"] == "ok" for entry in measured) else 1


if __name__ == "__main__":
    sys.exit(main())
