"""The command line over the stages: environments -> parse -> execute -> results -> equivalence -> pages -> Sphinx.

One (example, framework) that fails never stops the others: its result says why, the page
shows it, and ``--strict`` turns any failure into a non-zero exit at the end.
"""
from __future__ import annotations

import argparse
import importlib
import signal
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import nbformat

from ..data.fetch import DataError
from ..project import PROFILES, REPO_ROOT, Example, Framework, Project, UsageError, check_name, expand, resolve_profile
from ..settings import settings
from ..site import pages
from . import environments, equivalence, lessons, results, variables
from .execute import execute
from .files import BuildBusy, BuildLock, UnwritableError, write_atomically
from .phases import CLOCK
from .snippets import check_alignment, load_example_snippets

BAD_STATUSES = ("failed", "timeout", "not-installed", "snippet-error", "data-error")


def parse_args(argv):
    parser = argparse.ArgumentParser(description="Execute the snippets and build the site.")
    parser.add_argument("--profile", help=f"one of {', '.join(PROFILES)} (default: full with a GPU, else cpu)")
    parser.add_argument("--frameworks", help="comma-separated framework names (default: all)")
    parser.add_argument("--examples", help="comma-separated example names (default: all; none: no benchmarks)")
    parser.add_argument("--lessons", help="comma-separated lesson names (default: all; none: no lessons)")
    parser.add_argument("--force", action="store_true", help="re-execute even when nothing changed")
    parser.add_argument("--strict", action="store_true", help="exit non-zero if any snippet failed or is missing")
    parser.add_argument("--repeats", type=int, default=1, help="timed runs per snippet (median, min, max shown)")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds one step cell may run")
    parser.add_argument("--setup-only", action="store_true", help="create the environments and stop")
    parser.add_argument("--lock", action="store_true",
                        help="resolve every envs/*.txt into its .lock again (newest matching releases), then stop")
    parser.add_argument("--no-sphinx", action="store_true", help="stop after writing the pages")
    parser.add_argument("--measure-only", action="store_true",
                        help="set up, execute and write the results folder; no pages, no Sphinx (make measure)")
    parser.add_argument("--from-results", type=Path, action="append", metavar="DIR",
                        help="build the site from results measured elsewhere (a results folder; repeat for "
                             "several machines), executing nothing (make publish)")
    parser.add_argument("--no-equivalence", action="store_true",
                        help="skip the cross-framework equivalence checks (pages keep the last ones)")
    parser.add_argument("--equivalence-only", action="store_true",
                        help="run the selected examples' equivalence checks alone, none of their rows "
                             "(make reference ROWS=<example>/equivalence)")
    parser.add_argument("--wait", type=float, default=0, metavar="SECONDS",
                        help="when another build is running in this checkout, wait this long for it (default: stop)")
    parser.add_argument("--root", type=Path, default=REPO_ROOT, help=argparse.SUPPRESS)
    parser.add_argument("--output", type=Path, help="HTML folder (default: _build/html)")
    parser.add_argument("--results", type=Path, help="results folder (default: results/)")
    return parser.parse_args(argv)


def pick(kind: str, given: str | None, available: list):
    names = [item.name for item in available]
    if not given:
        return available
    if given == "none":
        return []
    wanted = [check_name(kind, name.strip(), names) for name in given.split(",") if name.strip()]
    return [item for item in available if item.name in wanted]


def log(message: str) -> None:
    print(message, flush=True)


class Doing:
    """What the build is doing now, for the message of an interrupted build; the signal that stopped it."""
    now = "starting"
    signal = ""
    handlers: dict = {}


def doing(what: str) -> None:
    Doing.now = what


def interrupt_on_signals() -> None:
    """SIGTERM (a CI runner stopping a job, `kill`) ends the build as Ctrl-C does: kernels and workers are
    shut down on the way out (execute, equivalence), and every finished result is kept."""
    def stop(signum, frame):
        Doing.signal = signal.Signals(signum).name
        raise KeyboardInterrupt(Doing.signal)
    Doing.signal, Doing.now = "", "starting"
    for number in (signal.SIGINT, signal.SIGTERM):
        Doing.handlers[number] = signal.signal(number, stop)


def restore_signals() -> None:
    for number, handler in Doing.handlers.items():
        signal.signal(number, handler)


def data_modules(project: Project) -> set[str]:
    """The data modules that the examples and lessons read (what ROSETTA_DATA folders are checked for)."""
    return {ex.data_module for ex in project.examples()} | {lesson.data_module
                                                            for lesson in lessons.all_lessons(project)[0]}


def not_run(example: Example, fw: Framework, profile: str, machine: str, machine_info: dict,
            status: str, reason: str) -> dict:
    return {"api_version": results.API_VERSION, "example": example.name, "framework": fw.name,
            "label": fw.label, "api": fw.api, "machine": machine,
            "machine_label": results.machine_label(machine_info), "profile": profile,
            "sizes": example.sizes(profile, fw.name), "status": status, "reason": reason,
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


def run_one(project: Project, example: Example, fw: Framework, snippet, env, profile: str,
            machine: str, machine_info: dict, args, data_info: dict, key: str) -> dict:
    """Execute one snippet args.repeats times (one after another) and build its result."""
    out_dir = results.result_dir(project, machine, profile, example.name)
    run_dir = project.build / "run" / example.name      # kernel cwd: outside snippets/ (no shadowing)
    run_dir.mkdir(parents=True, exist_ok=True)
    write_working_files(project, fw, run_dir)
    kernel_env = {"ROSETTA_PROFILE": profile, "ROSETTA_SNIPPETS": str(project.snippets),
                  "PYTHONHASHSEED": "0", **environments.process_variables(project, fw)}
    runs, execution = [], None
    for repeat in range(args.repeats):
        doing(f"executing {example.name}/{fw.name} (run {repeat + 1} of {args.repeats})")
        log(f"  run {repeat + 1}/{args.repeats} of {example.name}/{fw.name} ({profile})")
        execution = execute(snippet, fw.kernel_name, kernel_env, run_dir, args.timeout, fw.kernel_transport)
        CLOCK.add(f"{example.name}: kernel start-ups", execution.kernel_seconds)
        CLOCK.add(f"{example.name}: snippets", execution.wall_seconds - execution.kernel_seconds)
        runs.append({"steps": execution.step_seconds, "metrics": execution.metrics,
                     "wall_seconds": round(execution.wall_seconds, 3), "status": execution.status})
        if execution.status != "ok":
            break
    out_dir.mkdir(parents=True, exist_ok=True)
    write_atomically(out_dir / f"{fw.name}.ipynb", nbformat.writes(execution.notebook))

    ok_runs = [run for run in runs if run["status"] == "ok"] or runs
    steps = {}
    for step in example.steps:
        values = [run["steps"][step] for run in ok_runs if step in run["steps"]]
        if values:
            steps[step] = results.summarise(values)
    metrics = dict(execution.metrics)
    if execution.status == "ok":
        metrics.update(derived_metrics(example, metrics, steps))
    packages = env.fingerprint.get("packages", {})
    repository = results.repository_commit()
    result = not_run(example, fw, profile, machine, machine_info, execution.status, "")
    result.update({
        "error": execution.error, "steps": steps, "metrics": metrics, "runs": runs,
        "notebook": f"{fw.name}.ipynb", "cache_key": key,
        "provenance": {
            "date": results.now(),
            "framework_versions": results.key_packages(fw, {**packages, "python": env.fingerprint.get("python")}),
            "environment_sha256": env.fingerprint_hash,
            "machine": machine_info,
            "profile": profile, "sizes": example.sizes(profile, fw.name),
            "hyperparameters": example.hyperparameters,
            "data_source": execution.context.get("data_source", data_info.get("source", "")),
            "weights": execution.context.get("weights", example.weights),
            "seed": example.hyperparameters.get("seed"),
            "repeats": len(ok_runs),
            "snippet": results.snippet_commit(example.snippet_path(fw)),
            "code": results.example_code(example, fw),
            "repository": repository,
            "timing": "nbclient cell timestamps (execute_input to execute_reply), summed per step",
        },
    })
    if execution.status != "ok":
        result["reason"] = f"{execution.error['ename']}: {execution.error['evalue']}".strip()
    results.save(project, result)
    return result


def build_example(project: Project, example: Example, frameworks: list[Framework], selected: set[str],
                  envs: dict, profile: str, machine: str, machine_info: dict, args) -> dict[str, dict]:
    """Results of every framework of one example: re-measured where stale, else the last ones."""
    snippets = load_example_snippets(example, frameworks)
    parsed = list({id(s): s for s in snippets.values() if not isinstance(s, Exception)}.values())
    misaligned = {}
    for problem in check_alignment(example, parsed, frameworks):
        log(f"  alignment: {problem}")
        misaligned.setdefault(Path(problem.split(":")[0]), problem)
    data_info, data_error = {}, None
    hp = settings(example.name, profile, snippets=project.snippets)
    identity = data_identity(example, profile)
    out: dict[str, dict] = {}
    for fw in frameworks:
        if fw.name not in snippets:
            continue
        snippet = snippets[fw.name]
        path = results.result_path(project, machine, profile, example.name, fw.name)
        previous = None
        if path.exists():
            try:
                previous = results.load(path)
            except results.ResultFileError as exc:
                log(f"  {exc}: treated as missing, measured again")
        env = envs.get(fw.name)
        if isinstance(snippet, Exception) or snippet.path in misaligned:
            reason = str(snippet) if isinstance(snippet, Exception) else misaligned[snippet.path]
            out[fw.name] = not_run(example, fw, profile, machine, machine_info, "snippet-error", reason)
            continue
        if env is None or not env.ok:
            reason = env.reason if env else "environment not set up"
            out[fw.name] = previous if (previous and fw.name not in selected) else \
                not_run(example, fw, profile, machine, machine_info, "not-installed", reason)
            continue
        row_hp = settings(example.name, profile, snippets=project.snippets, row=fw.name).as_dict()
        key = results.cache_key(example, fw, env.fingerprint_hash, profile, machine, args.repeats, row_hp, identity)
        current = previous is not None and previous.get("cache_key") == key
        if current and fw.name in selected and previous.get("status") in results.RETRIED:
            log(f"  {example.name}/{fw.name}: {previous['status']} last time "
                f"({(previous.get('reason') or '').splitlines()[0] if previous.get('reason') else 'no reason'}): "
                "trying again")
            current = False
        if fw.name not in selected or (current and not args.force):
            if previous is not None:
                previous["stale"] = not current
                out[fw.name] = previous
                if not args.from_results:   # (a publishing build judges staleness by code: mark_stale_by_code)
                    log(f"  {example.name}/{fw.name}: {'up to date' if current else 'stale (not selected)'}")
            continue
        if profile_data(example, profile) != "synthetic" and not data_info and data_error is None:
            try:
                with CLOCK.timing(f"{example.name}: data"):
                    data_info = importlib.import_module(example.data_module).prepare(hp) if example.data_module else {}
                identity = data_identity(example, profile)   # prepare() may just have downloaded it
            except DataError as exc:
                data_error = str(exc)
                log(f"  data: {data_error}")
        if data_error:
            out[fw.name] = not_run(example, fw, profile, machine, machine_info, "data-error", data_error)
            if previous is None:      # a measurement on record is kept: with its data back, it is current again
                results.save(project, out[fw.name])
            continue
        key = results.cache_key(example, fw, env.fingerprint_hash, profile, machine, args.repeats, row_hp, identity)
        started = time.perf_counter()
        out[fw.name] = run_one(project, example, fw, snippet, env, profile, machine, machine_info, args,
                               data_info, key)
        log(f"  {example.name}/{fw.name}: {out[fw.name]['status']} in {time.perf_counter() - started:.1f} s")
    return out


def profile_data(example: Example, profile: str) -> str:
    return example.profiles.get(profile, {}).get("data", "real")


def data_identity(example: Example, profile: str) -> str:
    return results.data_identity(example.data_module, profile_data(example, profile))


def run_sphinx(project: Project, output: Path) -> int:
    """sphinx-build -W, incremental unless the last run was stopped part-way: Sphinx pickles its environment
    before it writes the pages and the search index, so a run killed in between leaves an environment that
    the next incremental run trusts and an index it cannot load (a warning, so -W fails). A marker file says
    a run is in progress; when it is still there, the environment is read afresh (-E)."""
    from sphinx.cmd.build import build_main
    unfinished = project.build / "sphinx-build.unfinished"
    fresh = ["-E"] if unfinished.exists() else []
    unfinished.parent.mkdir(parents=True, exist_ok=True)
    unfinished.touch()
    status = build_main(["-W", "--keep-going", "-q", "-b", "html", *fresh, "-c", str(REPO_ROOT),
                         str(project.docs), str(output), "-d", str(project.build / "doctrees")])
    if not Doing.signal:       # (Sphinx catches Ctrl-C itself and returns: that run is unfinished too)
        unfinished.unlink()
    return status


def lock_all(project: Project) -> int:
    """make lock: every requirements file (the build's own, each framework's, their GPU variants)."""
    failed = 0
    project.venvs.mkdir(parents=True, exist_ok=True)
    with open(project.venvs / "lock.log", "a") as trail:
        install_first = {fw.requirements.name.split(".")[0]: fw.install_first for fw in project.frameworks()}
        for requirements in sorted(project.envs.glob("*.txt")):
            try:
                lock = environments.write_lock(requirements, trail,
                                               install_first.get(requirements.name.split(".")[0], ()))
                log(f"  {requirements.name} -> {lock.name}")
            except RuntimeError as exc:
                failed += 1
                log(f"  {requirements.name}: {exc}")
    return 1 if failed else 0


def set_up(project: Project, all_frameworks: list[Framework], selected: set[str]) -> dict:
    log(f"environments ({project.venvs}):")
    envs = {}
    for fw in all_frameworks:
        doing(f"setting up the {fw.environment} environment")
        env = envs[fw.name] = environments.ensure(project, fw, create=fw.name in selected,
                                                  progress=lambda line: log(f"  {line}"))
        state = (f"created in {env.seconds:.1f} s ({env.packages} packages)" if env.created else
                 f"existing Python {env.existing_python}" if env.existing_python else "ready") \
            if env.ok else f"NOT INSTALLED: {env.reason}"
        if fw.name in selected or env.ok:
            log(f"  {fw.name}: {state}")
    return envs


@dataclass
class Measured:
    """What the measuring stages hand to the pages: results, equivalence checks and lesson results."""
    results: dict = field(default_factory=dict)
    checked: dict = field(default_factory=dict)
    equivalence_errors: list = field(default_factory=list)
    lessons: dict = field(default_factory=dict)


def measure(project: Project, all_examples: list[Example], examples: list[Example], all_frameworks: list[Framework],
            selected: set[str], envs: dict, all_lessons: list, lesson_problems: list, chosen_lessons: set[str],
            profile: str, machine: str, machine_info: dict, args, given: variables.Variables) -> Measured:
    """Each example, its equivalence checks, then the lessons: measured where selected and stale, else
    the results on record (with nothing selected, as a publishing build does, nothing runs)."""
    out = Measured()
    for example in all_examples:
        if profile not in example.profiles:
            log(f"{example.name}: no {profile!r} profile, skipped")
            continue
        log(f"{example.name}:")
        chosen = selected if example.name in {ex.name for ex in examples} else set()
        out.results[example.name] = build_example(project, example, all_frameworks,
                                                  set() if args.equivalence_only else chosen, envs,
                                                  profile, machine, machine_info, args)
        if chosen and not args.no_equivalence:
            doing(f"checking the equivalence of {example.name}")
            try:
                with CLOCK.timing(f"{example.name}: equivalence"):
                    out.checked[example.name] = equivalence.check(project, example, all_frameworks, envs, profile,
                                                                  machine, machine_info, force=args.force, log=log,
                                                                  workers=given.check_workers)
            except Exception as exc:   # a broken spec must not cost the other examples their pages
                log(f"  equivalence: could not run: {type(exc).__name__}: {exc}")
                out.equivalence_errors.append(
                    f"{example.name}: equivalence could not run: {type(exc).__name__}: {exc}")
                out.checked[example.name] = None
        else:
            out.checked[example.name] = equivalence.previous(project, example, profile, machine, all_frameworks,
                                                             envs) if equivalence.has_checks(example) else None
    # Lessons after the benchmarks, one script at a time like them.
    for problem in lesson_problems:
        log(f"lesson: {problem}")
    for lesson in all_lessons:
        if profile not in lesson.profiles:
            log(f"lesson {lesson.name}: no {profile!r} profile, skipped")
            continue
        log(f"lesson {lesson.name}:")
        doing(f"measuring lesson {lesson.name}")
        out.lessons[lesson.name] = lessons.build_lesson(
            project, lesson, all_frameworks, selected if lesson.name in chosen_lessons else set(), envs,
            profile, machine, machine_info, args.timeout, args.force,
            log if not args.from_results else (lambda line: None))
    return out


def failure_lines(measured: Measured, all_examples: list[Example], selected: set[str],
                  chosen_lessons: set[str]) -> tuple[dict, list[str]]:
    """One line per distinct problem (a missing data set stops every tab of its example alike), and the
    equivalence problems."""
    examples_by_name = {ex.name: ex for ex in all_examples}
    failures: dict[tuple[str, str, str], list[str]] = {}
    for ex, per_fw in measured.results.items():
        for fw, r in per_fw.items():
            if r["status"] in BAD_STATUSES and fw in selected:
                reason = (r.get("reason") or "").splitlines()[0] if r.get("reason") else ""
                hint = examples_by_name[ex].failure_hints.get((r.get("error") or {}).get("step", ""), "")
                failures.setdefault((ex, r["status"], f"{reason} {hint}".strip()), []).append(fw)
    for name, per_fw in measured.lessons.items():
        for fw, r in per_fw.items():
            if r["status"] in BAD_STATUSES and fw in selected and name in chosen_lessons:
                reason = (r.get("reason") or "").splitlines()[0] if r.get("reason") else ""
                failures.setdefault((f"lesson {name}", r["status"], reason), []).append(fw)
    mismatches = measured.equivalence_errors + [f"{ex}: {failure}" for ex, result in measured.checked.items()
                                                if result for failure in result["failures"]]
    return failures, mismatches


def find_published(folders: list[Path], profile: str | None) -> tuple[list[tuple[Path, str, str]], list[str]]:
    """(folder, machine, profile) of every machine in the given results folders, and one line per
    folder or machine that cannot be read (the others still build)."""
    found, problems = [], []
    for root in folders:
        if not root.is_dir():
            problems.append(f"{root}: not a folder")
            continue
        machines = sorted(d.name for d in root.iterdir() if d.is_dir())
        if not machines:
            problems.append(f"{root}: no machine folder in it (expected <machine>/machine.json, written by "
                            "`make measure`)")
        for machine in machines:
            try:
                results.load_machine(root, machine)
            except results.ResultFileError as exc:
                problems.append(str(exc))
                continue
            profiles = [p for p in PROFILES if (root / machine / p).is_dir() and (not profile or p == profile)]
            if not profiles:
                problems.append(f"{root / machine}: no results of profile "
                                f"{profile or ' or '.join(PROFILES)}")
            found += [(root, machine, p) for p in profiles]
    return found, problems


def mark_stale_by_code(measured: Measured, examples: list[Example], frameworks: list[Framework],
                       all_lessons: list) -> None:
    """Results measured on another machine are stale when this checkout's code differs from the code
    they measured (their cache keys also name data paths of that machine, which mean nothing here)."""
    by_name = {fw.name: fw for fw in frameworks}
    for example in examples:
        for name, result in measured.results.get(example.name, {}).items():
            if name in by_name and result.get("provenance", {}).get("date") and result.get("cache_key"):
                result["stale"] = results.code_changed(result, results.example_code(example, by_name[name]))
    for lesson in all_lessons:
        for name, result in measured.lessons.get(lesson.name, {}).items():
            if name in by_name and result.get("cache_key"):
                result["stale"] = results.code_changed(result, lessons.lesson_code(lesson, by_name[name]))


def main(argv=None) -> int:
    args = parse_args(argv)
    published = [folder.resolve() for folder in args.from_results or []]
    project = Project(root=args.root.resolve(), results=args.results.resolve() if args.results else None)
    try:
        profile = resolve_profile(args.profile) if not published or args.profile else None
        all_frameworks, all_examples = project.frameworks(), project.examples()
        frameworks = pick("framework", args.frameworks, all_frameworks)
        examples = pick("example", args.examples, all_examples)
        all_lessons, lesson_problems = lessons.all_lessons(project)
        chosen_lessons = {lesson.name for lesson in lessons.pick(args.lessons, all_lessons)}
        settings_given = variables.read()
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.repeats < 1:
        print("error: --repeats must be at least 1", file=sys.stderr)
        return 2
    if published and (args.measure_only or args.setup_only or args.lock):
        print("error: --from-results builds from results measured elsewhere: it cannot also set up or measure",
              file=sys.stderr)
        return 2
    for line in variables.path_problems(settings_given, data_modules(project)):
        log(f"warning: {line}")     # (named, not silently ignored)
    lock = BuildLock(project.build / "build.lock")
    try:
        lock.acquire(args.wait, on_wait=lambda holder: log(f"waiting up to {args.wait:g} s: "
                                                           + lock.describe(holder)))
    except BuildBusy as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    interrupt_on_signals()
    try:
        return build(args, project, profile, published, frameworks, all_frameworks, examples, all_examples,
                     all_lessons, lesson_problems, chosen_lessons, settings_given)
    except KeyboardInterrupt as exc:
        log(f"interrupted ({str(exc) or 'SIGINT'}) while {Doing.now}: every result that finished is kept and none is "
            "half written; the next build continues from here (finished snippets are not run again)")
        return 130
    except UnwritableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        lock.release()
        restore_signals()


def build(args, project: Project, profile, published: list[Path], frameworks: list[Framework],
          all_frameworks: list[Framework], examples: list[Example], all_examples: list[Example],
          all_lessons: list, lesson_problems: list, chosen_lessons: set[str], given: variables.Variables) -> int:
    """The stages, in order, for the options given (main has checked them and holds the lock)."""
    CLOCK.reset()            # the build's clock: its phases, and the whole build's time
    selected = {fw.name for fw in frameworks}

    if args.lock:
        return lock_all(project)
    if published:
        # Measure there, publish here: nothing runs, no environment is made; the first machine found in
        # the first folder is the pages' own ("this build"), every other one sits beside it.
        found, problems = find_published(published, args.profile)
        for problem in problems:
            log(f"results: {problem}")
        if not found:
            print("error: no readable results in " + ", ".join(map(str, published)), file=sys.stderr)
            return 2
        rank = {p: i for i, p in enumerate(reversed(PROFILES))}        # full first, then cpu, then smoke
        # (Of one folder's machines, the one with most benchmark rows: a check re-measured alone on another
        # machine of the kind sits beside the machine that measured the rows.)
        root, machine, profile = min(found, key=lambda f: (published.index(f[0]), rank[f[2]],
                                                           -results.rows_measured(f[0] / f[1] / f[2])))
        machine_info, records = results.load_machine(root, machine)
        machine_info["results_folder"] = str(root)        # (the pages say where their own column came from)
        others = [f for f in published if f != root]
        project = replace(project, results=root, extra_results=(*others, *project.extra_results))
        envs, selected = results.recorded_environments(records), set()
        log(f"publishing from {len(found)} machine/profile result folder(s); pages' own: {machine}, {profile}")
    else:
        with CLOCK.timing("environments"):
            envs = set_up(project, all_frameworks, selected)
        if args.setup_only:
            return 1 if args.strict and not all(envs[fw.name].ok for fw in frameworks) else 0
        machine_info = results.describe_machine()
        # Before any snippet runs (never beside a timed run), once per machine: its band is part of the
        # machine's name, so that two machines of one model at different rates never share results.
        doing("measuring the machine's float32 peak")
        with CLOCK.timing("machine peak"):
            machine_info["float32_matmul"] = results.known_peak(project.results, machine_info) or \
                results.measure_peak(project, all_frameworks, envs)
        machine = results.machine_id(machine_info, given.machine)
        results.save_machine(project, machine, machine_info)
        results.save_environments(project, machine, envs)
        log(f"machine {machine}, profile {profile}")
    measured = measure(project, all_examples, examples, all_frameworks, selected, envs, all_lessons,
                       lesson_problems, chosen_lessons, profile, machine, machine_info, args, given)
    if published:
        mark_stale_by_code(measured, all_examples, all_frameworks, all_lessons)
        stale = [f"{name}/{row}" for group in (measured.results, measured.lessons)
                 for name, rows in group.items() for row, r in rows.items() if r.get("stale")]
        log(f"{sum(len(rows) for rows in measured.results.values())} results and "
            f"{sum(len(rows) for rows in measured.lessons.values())} lesson results read; "
            + (f"{len(stale)} stale (their code changed since): {', '.join(stale)}" if stale else "none stale"))
    failures, mismatches = failure_lines(measured, all_examples, selected, chosen_lessons)
    status = 0
    if args.measure_only:
        log(f"results: {project.results / machine / profile}")
    else:
        doing("writing the pages")
        with CLOCK.timing("pages"):
            written = pages.write_site(project, all_examples, all_frameworks, measured.results, envs,
                                       profile, machine, machine_info, measured.checked,
                                       pages.LessonsInput(all_lessons, measured.lessons, lesson_problems))
        log(f"pages: {written} written or updated")
        if not args.no_sphinx:
            output = (args.output or project.build / "html").resolve()
            log("sphinx-build -W ...")
            doing("running sphinx-build")
            with CLOCK.timing("sphinx-build"):
                status = run_sphinx(project, output)
            if Doing.signal:          # (Sphinx catches KeyboardInterrupt itself and returns 2)
                raise KeyboardInterrupt(Doing.signal)
            if status == 0:
                log(f"site: {output / 'index.html'}")
    log(f"done in {CLOCK.total():.1f} s; where the time went:")
    log(CLOCK.table())
    CLOCK.save(project.build / "phases.json")
    if failures:
        log(f"{sum(map(len, failures.values()))} snippet(s) did not run:")
        for (ex, state, reason), fws in failures.items():
            log(f"  {ex}/{','.join(fws)}: {state}: {reason}")
    if mismatches:
        log(f"{len(mismatches)} equivalence problem(s) (each benchmark page shows its checks):")
        for line in mismatches:
            log(f"  {line}")
    if status:
        return status
    return 1 if (args.strict and (failures or mismatches)) else 0
