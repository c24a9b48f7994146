"""The stages of a build, each reading the run context (context.py): the environments, the machine, the
measurements (benchmark rows, equivalence checks, lessons: jobs.py runs them all), or the results measured
elsewhere that a publishing build reads; the failure summary; Sphinx. cli.py runs them in order.
"""
from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType

from .. import model
from ..project import PROFILES, REPO_ROOT
from . import benchmark, conversion, environments, equivalence, jobs, lessons, results, staleness, store
from .context import RunContext
from .outcome import BAD
from .phases import CLOCK
from .signals import Doing, doing


def set_up(context: RunContext) -> RunContext:
    """Every framework's environment (created for the selected ones) and the export environments their ONNX
    exports run in (conversion.exporter, no kernel), then the machine: described, its float32 peak measured once,
    its description and environments saved."""
    log, project = context.log, context.project
    log(f"environments ({project.venvs}):")
    envs = {}
    # (its fingerprint without a row's [variables]: each row adds its own when it runs there)
    exporters = {model.export_environment(fw): replace(conversion.exporter(fw), variables={})
                 for fw in context.frameworks if model.export_environment(fw)}
    with CLOCK.timing("environments"):
        for name, fw, kernel in [*((fw.name, fw, True) for fw in context.frameworks),
                                 *((name, fw, False) for name, fw in exporters.items())]:
            doing(f"setting up the {fw.environment} environment")
            selected = fw.name in context.selection.frameworks if kernel else any(
                model.export_environment(other) == name for other in context.frameworks
                if other.name in context.selection.frameworks)
            env = envs[name] = environments.ensure(project, fw, create=selected, kernel=kernel,
                                                   progress=lambda line: log(f"  {line}"))
            state = (f"created in {env.seconds:.1f} s ({env.packages} packages)" if env.created else
                     f"existing Python {env.existing_python}" if env.existing_python else "ready") \
                if env.ok else f"NOT INSTALLED: {env.reason}"
            if selected or env.ok:
                log(f"  {name}{'' if kernel else ' (ONNX exports)'}: {state}")
    return replace(context, envs=MappingProxyType(envs))


def describe_machine(context: RunContext) -> RunContext:
    machine_info = results.describe_machine()
    # Before any snippet runs (never beside a timed run), once per machine: its band is part of the
    # machine's name, so that two machines of one model at different rates never share results.
    doing("measuring the machine's float32 peak")
    with CLOCK.timing("machine peak"):
        machine_info["float32_matmul"] = results.known_peak(context.project.results, machine_info) or \
            results.measure_peak(context.project, list(context.frameworks), context.envs)
    machine = results.machine_id(machine_info, context.variables.machine)
    results.save_machine(context.project, machine, machine_info)
    results.save_environments(context.project, machine, context.envs)
    context.log(f"machine {machine}, profile {context.profile}")
    return replace(context, machine=machine, machine_info=machine_info)


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
            except store.ResultFileError as exc:
                problems.append(str(exc))
                continue
            profiles = [p for p in PROFILES if (root / machine / p).is_dir() and (not profile or p == profile)]
            if not profiles:
                problems.append(f"{root / machine}: no results of profile "
                                f"{profile or ' or '.join(PROFILES)}")
            found += [(root, machine, p) for p in profiles]
    return found, problems


def pages_own(folders: list[Path], found: list[tuple[Path, str, str]]) -> tuple[Path, str, str]:
    """The (folder, machine, profile) whose results are the pages' own: in the first folder, the fullest profile
    (full, then cpu, then smoke), then the machine with most benchmark rows."""
    rank = {p: i for i, p in enumerate(reversed(PROFILES))}
    return min(found, key=lambda f: (folders.index(f[0]), rank[f[2]], -store.rows_measured(f[0] / f[1] / f[2])))


def published(context: RunContext, found: list[tuple[Path, str, str]]) -> RunContext:
    """Measure there, publish here: nothing runs, no environment is made; the first machine found in the first
    folder is the pages' own ("this build"), every other one sits beside it. (Of one folder's machines, the
    one with most benchmark rows: a check re-measured alone on another machine of the kind sits beside the
    machine that measured the rows.)"""
    folders = list(context.options.published)
    root, machine, profile = pages_own(folders, found)
    machine_info, records = results.load_machine(root, machine)
    machine_info["results_folder"] = str(root)        # (the pages say where their own column came from)
    others = [f for f in folders if f != root]
    project = replace(context.project, results=root, extra_results=(*others, *context.project.extra_results))
    context.log(f"publishing from {len(found)} machine/profile result folder(s); pages' own: {machine}, {profile}")
    return replace(context, project=project, profile=profile, machine=machine, machine_info=machine_info,
                   envs=MappingProxyType(results.recorded_environments(records)), selection=replace(
                       context.selection, frameworks=frozenset()))


@dataclass
class Measured:
    """What the measuring stages hand to the pages: results, equivalence checks and lesson results."""
    results: dict = field(default_factory=dict)
    checked: dict = field(default_factory=dict)
    equivalence_errors: list = field(default_factory=list)
    converted: dict = field(default_factory=dict)
    lessons: dict = field(default_factory=dict)


def measure(context: RunContext) -> Measured:
    """Each example, its equivalence checks, then the lessons: measured where selected and stale, else
    the results on record (with nothing selected, as a publishing build does, nothing runs)."""
    out, log, options, selection = Measured(), context.log, context.options, context.selection
    for example in context.examples:
        if context.profile not in example.profiles:
            log(f"{example.name}: no {context.profile!r} profile, skipped")
            continue
        log(f"{example.name}:")
        chosen = example.name in selection.examples
        rows = selection.rows(chosen, options.equivalence_only)
        side_by_side = jobs.side_by_side(context)      # (at a profile that measures nothing, two at a time)
        with CLOCK.timing(f"{example.name}: snippets, {side_by_side} at a time") if side_by_side > 1 else nullcontext():
            out.results[example.name] = jobs.run_jobs(context, benchmark.jobs(context, example, rows), side_by_side)
        checks = bool(chosen and selection.frameworks and options.equivalence)
        out.checked[example.name] = check(context, example, out, checks)
        out.converted[example.name] = convert(context, example, out, checks)
    # Lessons after the benchmarks, one script at a time like them; at a profile that measures nothing
    # (smoke: it checks that the scripts run), side by side, each kernel on a core of its own.
    for problem in context.lesson_problems:
        log(f"lesson: {problem}")
    side_by_side = jobs.side_by_side(context)
    queued = []
    for lesson in context.lessons:
        if context.profile not in lesson.profiles:
            log(f"lesson {lesson.name}: no {context.profile!r} profile, skipped")
            continue
        rows = selection.rows(lesson.name in selection.lessons)
        if side_by_side > 1:
            queued += [(lesson.name, job) for job in lessons.jobs(context, lesson, rows)]
            continue
        log(f"lesson {lesson.name}:")
        out.lessons[lesson.name] = jobs.run_jobs(context, lessons.jobs(context, lesson, rows))
    if queued:
        log(f"lessons: {len(queued)} scripts, {side_by_side} at a time (profile {context.profile} measures nothing)")
        with CLOCK.timing(f"lessons: scripts, {side_by_side} at a time"):
            found = jobs.run_side_by_side(context, [job for _, job in queued], side_by_side)
        for (name, job), result in zip(queued, found):
            rows_found = out.lessons.setdefault(name, {})
            if result is not None:
                rows_found[job.row] = result
    if options.publishing:
        staleness.mark_rows(out.results, list(context.examples), list(context.frameworks), store.BENCHMARK)
        staleness.mark_rows(out.lessons, list(context.lessons), list(context.frameworks), store.LESSON)
    return out


def check(context: RunContext, example, out: Measured, selected: bool) -> dict | None:
    """The example's equivalence check: run when selected and stale, else the one on record (this machine's,
    else another's). A check that cannot run is one line; the other examples still get their pages."""
    job = equivalence.job(context, example, selected)
    if job is None:
        return None
    job = replace(job, elsewhere=lambda: staleness.check_elsewhere(context.project, example, context.profile,
                                                                   context.machine, list(context.frameworks)))
    try:
        with CLOCK.timing(f"{example.name}: equivalence") if selected else nullcontext():
            return jobs.run_job(context, job)
    except Exception as exc:   # a broken spec must not cost the other examples their pages
        context.log(f"  equivalence: could not run: {type(exc).__name__}: {exc}")
        out.equivalence_errors.append(f"{example.name}: equivalence could not run: {type(exc).__name__}: {exc}")
        return None


def convert(context: RunContext, example, out: Measured, selected: bool) -> dict | None:
    """The example's ONNX conversions, run with its equivalence check (they load the same neutral weights): when
    selected and stale, else the ones on record (this machine's, else another's). Like a check, a conversion that
    cannot run is one line."""
    job = conversion.job(context, example, selected)
    if job is None:
        return None
    job = replace(job, elsewhere=lambda: staleness.conversions_elsewhere(context.project, example, context.profile,
                                                                         context.machine, list(context.frameworks)))
    try:
        with CLOCK.timing(f"{example.name}: conversion") if selected else nullcontext():
            return jobs.run_job(context, job)
    except Exception as exc:
        context.log(f"  conversion: could not run: {type(exc).__name__}: {exc}")
        out.equivalence_errors.append(f"{example.name}: conversion could not run: {type(exc).__name__}: {exc}")
        return None


def failure_lines(context: RunContext, measured: Measured) -> tuple[dict, list[str]]:
    """One line per distinct problem (a missing data set stops every tab of its example alike), and the
    equivalence problems."""
    selected, chosen_lessons = context.selection.frameworks, context.selection.lessons
    examples_by_name = {ex.name: ex for ex in context.examples}
    failures: dict[tuple[str, str, str], list[str]] = {}
    for ex, per_fw in measured.results.items():
        for fw, r in per_fw.items():
            if r["status"] in BAD and fw in selected:
                hint = examples_by_name[ex].failure_hints.get((r.get("error") or {}).get("step", ""), "")
                failures.setdefault((ex, r["status"], f"{jobs.first_line(r.get('reason'))} {hint}".strip()),
                                    []).append(fw)
    for name, per_fw in measured.lessons.items():
        for fw, r in per_fw.items():
            if r["status"] in BAD and fw in selected and name in chosen_lessons:
                failures.setdefault((f"lesson {name}", r["status"], jobs.first_line(r.get("reason"))), []).append(fw)
    mismatches = measured.equivalence_errors + [f"{ex}: {failure}" for ex, result in measured.checked.items()
                                                if result for failure in result["failures"]]
    return failures, mismatches


def report(context: RunContext, measured: Measured) -> None:
    """What a publishing build read, and how much of it is stale."""
    stale = [f"{name}/{row}" for group in (measured.results, measured.lessons)
             for name, rows in group.items() for row, r in rows.items() if r.get("stale")]
    context.log(f"{sum(len(rows) for rows in measured.results.values())} results and "
                f"{sum(len(rows) for rows in measured.lessons.values())} lesson results read; "
                + (f"{len(stale)} stale (their code changed since): {', '.join(stale)}" if stale else "none stale"))


def summary(context: RunContext, failures: dict, mismatches: list[str]) -> None:
    """Where the time went (saved for benchmarks/build_timings.py), then what did not run and why."""
    log = context.log
    log(f"done in {CLOCK.total():.1f} s; where the time went:")
    log(CLOCK.table())
    CLOCK.save(context.project.build / "phases.json")
    if failures:
        log(f"{sum(map(len, failures.values()))} snippet(s) did not run:")
        for (ex, state, reason), fws in failures.items():
            log(f"  {ex}/{','.join(fws)}: {state}: {reason}")
    if mismatches:
        log(f"{len(mismatches)} equivalence problem(s) (each benchmark page shows its checks):")
        for line in mismatches:
            log(f"  {line}")


def run_sphinx(context: RunContext) -> int:
    """sphinx-build -W, incremental unless the last run was stopped part-way: Sphinx pickles its environment
    before it writes the pages and the search index, so a run killed in between leaves an environment that
    the next incremental run trusts and an index it cannot load (a warning, so -W fails). A marker file says
    a run is in progress; when it is still there, the environment is read afresh (-E)."""
    from sphinx.cmd.build import build_main
    project = context.project
    output = (context.options.output or project.build / "html").resolve()
    context.log("sphinx-build -W ...")
    doing("running sphinx-build")
    unfinished = project.build / "sphinx-build.unfinished"
    fresh = ["-E"] if unfinished.exists() else []
    unfinished.parent.mkdir(parents=True, exist_ok=True)
    unfinished.touch()
    with CLOCK.timing("sphinx-build"):
        status = build_main(["-W", "--keep-going", "-q", "-b", "html", *fresh, "-c", str(REPO_ROOT),
                             str(project.docs), str(output), "-d", str(project.build / "doctrees")])
    if Doing.signal:          # (Sphinx catches Ctrl-C itself and returns 2: that run is unfinished too)
        raise KeyboardInterrupt(Doing.signal)
    unfinished.unlink()
    if status == 0:
        context.log(f"site: {output / 'index.html'}")
    return status


def lock_all(context: RunContext) -> int:
    """make lock: every requirements file (the build's own, each framework's, their GPU variants)."""
    failed, project = 0, context.project
    project.venvs.mkdir(parents=True, exist_ok=True)
    with open(project.venvs / "lock.log", "a") as trail:
        install_first = {fw.requirements.name.split(".")[0]: fw.install_first for fw in project.frameworks()}
        for requirements in sorted(project.envs.glob("*.txt")):
            try:
                lock = environments.write_lock(requirements, trail,
                                               install_first.get(requirements.name.split(".")[0], ()))
                context.log(f"  {requirements.name} -> {lock.name}")
            except RuntimeError as exc:
                failed += 1
                context.log(f"  {requirements.name}: {exc}")
    return 1 if failed else 0
