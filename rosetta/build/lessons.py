"""Lessons stage: each lesson of lessons/<lesson>/ executed in every framework it has a script for.

A lesson is files only: ``lesson.toml`` (the claim, its source, the variants, the decision
rules, the sizes per profile), a ``README.md`` (the lesson in words) and one jupytext script
per framework (``<framework>.py``, cut into the lesson's steps, ending with one
``lesson.compare`` call). Scripts run like the benchmarks, a job each (jobs.py): in their framework's kernel, one
at a time, cached by content, environment, profile and machine; a failure is recorded and
shown, never fatal. Verdicts are computed from the stored numbers when the pages are written
(rosetta/build/verdict.py), so no verdict is ever typed.
"""
from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .. import lesson as lesson_helper  # (the kernel side's helper that lesson scripts import)
from .. import model
from ..project import PROFILES, REPO_ROOT, Framework, Project, UsageError, check_name, resolve_profile, script_in
from . import environments, identity, results, store
from .context import RunContext
from .execute import execute
from .jobs import Blocked, Data, Job, side_by_side
from .outcome import Outcome
from .phases import CLOCK
from .snippets import Snippet, SnippetError, check_alignment, parse
from .verdict import RuleError, check_rule, device_reason, judge

DEFAULT_STEPS = ("setup", "variants", "measure")
MIN_TIMED_REPEATS = 3                  # a timing claim is judged on at least this many rounds (cpu, full)
HELPER_CODE = ("rosetta/lesson.py", "rosetta/settings.py", "rosetta/report.py", "rosetta/project.py",
               "rosetta/data/__init__.py", "rosetta/data/fetch.py")


class LessonError(ValueError):
    """A lesson.toml that cannot be used; the message names the file."""


@dataclass(frozen=True)
class Lesson:
    name: str
    folder: Path
    title: str
    claim: str                 # the claim in one sentence, as the index shows it
    source: str                # where it comes from (the original study, a guide, our checks)
    variants: dict             # variant name -> what it is, in words
    rules: tuple               # decision rules (rosetta/build/verdict.py)
    profiles: dict             # profile -> sizes; repeats and warmup included
    settings: dict = field(default_factory=dict)
    steps: tuple = DEFAULT_STEPS
    order: int = 100
    concerns: tuple = ()       # benchmark examples whose pages link here
    requires: str = ""         # "gpu": only judged on a machine with one
    data_module: str = ""      # the data set it reads, prepared (and checksummed) by the build
    left_out: dict = field(default_factory=dict)   # row -> why it has no script of this lesson ([[left_out]])
    curve: dict = field(default_factory=dict)      # [curve]: variants as points of a line (x_label, x, metrics)
    controls: tuple = ()       # variants that take a snippet's own speed-up away (never counted as tuned)

    def snippet_path(self, fw: Framework | str) -> Path:
        return script_in(self.folder, fw)

    def frameworks(self, known: list[Framework]) -> list[Framework]:
        return [fw for fw in known if self.snippet_path(fw).exists()]


NOT_WRITTEN = "not written yet"        # a row the claim speaks of, whose script is still to come


def left_out_rows(entries) -> dict[str, str]:
    """[[left_out]] entries (rows = [...], why = "...") as row -> why; a row named twice is a mistake."""
    found: dict[str, str] = {}
    for entry in entries:
        rows, why = entry["rows"], str(entry["why"]).strip()
        if not why or not rows or not all(isinstance(row, str) for row in rows):
            raise ValueError(f"a [[left_out]] entry needs rows (a list of row names) and why: {entry}")
        for row in rows:
            if row in found:
                raise ValueError(f"row {row!r} is left out twice")
            found[row] = why
    return found


def accounting_problems(lesson: Lesson, known: list[Framework]) -> list[str]:
    """What a lesson says wrongly about its rows: a left-out row that is unknown or has a script after all."""
    names = [fw.name for fw in known]
    problems = [f"left out row {row!r} is not a row ({', '.join(names)})"
                for row in lesson.left_out if row not in names]
    problems += [f"row {fw.name!r} has a script ({lesson.snippet_path(fw).name}) and is also left out"
                 for fw in lesson.frameworks(known) if fw.name in lesson.left_out]
    return [f"{lesson.folder / 'lesson.toml'}: {problem}" for problem in problems]


def check_curve(curve: dict, variants: list[str]) -> str:
    """What is wrong with a [curve] table ("" when nothing): it places variants on a numeric axis
    (x = {variant = number}), named by x_label, and draws the listed metrics against it."""
    if not curve:
        return ""
    x, metrics = curve.get("x"), curve.get("metrics")
    if not curve.get("x_label") or not isinstance(x, dict) or not x or not metrics:
        return "it needs x_label, x (variant = number) and metrics (a list of metric names)"
    unknown = [name for name in x if name not in variants]
    if unknown:
        return f"x places {unknown}, which are not variants ({', '.join(variants)})"
    if not all(isinstance(value, (int, float)) and value > 0 for value in x.values()):
        return "x's values must be positive numbers (the axis is logarithmic)"
    return ""


def load_lesson(folder: Path) -> Lesson:
    path = folder / "lesson.toml"
    try:
        meta = model.read(path)
        variants = dict(meta["variants"])
        rules = tuple(dict(rule) for rule in meta.get("rules", ()))
        profiles = {name: dict(sizes) for name, sizes in meta.get("profiles", {}).items()}
        lesson = Lesson(name=folder.name, folder=folder, title=meta["title"], claim=meta["claim"],
                        source=meta.get("source", ""), variants=variants, rules=rules, profiles=profiles,
                        settings=dict(meta.get("settings", {})), steps=tuple(meta.get("steps", DEFAULT_STEPS)),
                        order=int(meta.get("order", 100)), concerns=tuple(meta.get("concerns", ())),
                        requires=meta.get("requires", ""), data_module=meta.get("data_module", ""),
                        left_out=left_out_rows(meta.get("left_out", ())), curve=dict(meta.get("curve", {})),
                        controls=tuple(meta.get("controls", ())))
    except UsageError as exc:           # (the model's message names the file: not valid TOML, an unknown key)
        raise LessonError(str(exc)) from None
    except (OSError, KeyError, TypeError, ValueError) as exc:
        raise LessonError(f"{path}: {type(exc).__name__}: {exc}") from None
    if not rules:
        raise LessonError(f"{path}: no [[rules]]: a lesson states its claim as a rule over what it measures")
    try:
        for rule in rules:
            check_rule(rule, list(variants))
        for name in profiles:
            check_name("profile", name, PROFILES)
    except (RuleError, UsageError) as exc:
        raise LessonError(f"{path}: {exc}") from None
    if lesson.requires not in ("", "gpu"):
        raise LessonError(f"{path}: requires must be \"gpu\" or absent, not {lesson.requires!r}")
    if lesson.requires == "gpu" and any(rule.get("device") == "cpu" for rule in rules):
        raise LessonError(f"{path}: a lesson that requires a GPU runs only on one: a rule with device = \"cpu\" "
                          "could never be judged")
    unknown = [name for name in lesson.controls if name not in variants]
    if unknown:
        raise LessonError(f"{path}: controls {unknown} are not variants ({', '.join(variants)})")
    curve_problem = check_curve(lesson.curve, list(variants))
    if curve_problem:
        raise LessonError(f"{path}: [curve]: {curve_problem}")
    timed = any(rule["metric"] == "seconds" or rule["metric"].endswith("_per_second") for rule in rules)
    for name, sizes in profiles.items():
        repeats = int(sizes.get("repeats", lesson.settings.get("repeats", 3)))
        if timed and name != "smoke" and repeats < MIN_TIMED_REPEATS:
            raise LessonError(f"{path}: profile {name!r} times its variants {repeats} time(s); "
                              f"a timing claim needs at least {MIN_TIMED_REPEATS} repeats")
    return lesson


def all_lessons(project: Project) -> tuple[list[Lesson], list[str]]:
    """Every lesson in order, and one problem line per lesson folder that cannot be read."""
    found, problems = [], []
    for path in sorted(project.lessons.glob("*/lesson.toml")) if project.lessons.exists() else []:
        try:
            lesson = load_lesson(path.parent)
        except LessonError as exc:
            problems.append(str(exc))
            continue
        found.append(lesson)
        problems += accounting_problems(lesson, project.frameworks())
    return sorted(found, key=lambda lesson: (lesson.order, lesson.name)), problems


def pick(given: str | None, available: list[Lesson]) -> list[Lesson]:
    if not given:
        return available
    if given == "none":
        return []
    names = [lesson.name for lesson in available]
    wanted = [check_name("lesson", name.strip(), names) for name in given.split(",") if name.strip()]
    return [lesson for lesson in available if lesson.name in wanted]


# --- results ---------------------------------------------------------------------------------------

def helper_hash(lesson: Lesson) -> str:
    return results.code_hash(HELPER_CODE, lesson.data_module)


def cache_key(lesson: Lesson, framework: Framework | str, env_hash: str, profile: str, machine: str, data: str) -> str:
    digest = hashlib.sha256()
    for part in (identity.snippet_identity(lesson.snippet_path(framework)).encode(),
                 identity.definition_identity(lesson.folder / "lesson.toml").encode(),
                 helper_hash(lesson).encode(), env_hash.encode(), profile.encode(), machine.encode(), data.encode()):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()


def lesson_code(lesson: Lesson, fw: Framework) -> dict:
    """What a result measured (see results.code_record): stale elsewhere when it changes."""
    return results.code_record(lesson.snippet_path(fw), lesson.folder / "lesson.toml", helper_hash(lesson))


def data_kind(lesson: Lesson, profile: str) -> str:
    return lesson.profiles.get(profile, {}).get("data", lesson.settings.get("data", "real"))


def record(context: RunContext, lesson: Lesson, fw: Framework, status: Outcome, reason: str = "") -> dict:
    return {"api_version": store.LESSON.api_version, "lesson": lesson.name, "framework": fw.name, "label": fw.label,
            "machine": context.machine, "machine_label": results.machine_label(context.machine_info),
            "profile": context.profile, "sizes": lesson.profiles.get(context.profile, {}), "status": status,
            "reason": reason, "error": None, "variants": {}, "notebook": None, "cache_key": None,
            "provenance": {"date": results.now()}}


# --- execution -------------------------------------------------------------------------------------

def run_row(context: RunContext, lesson: Lesson, fw: Framework, snippet: Snippet, key: str) -> tuple[dict, str]:
    project, profile = context.project, context.profile
    # The kernel's cwd, outside lessons/, one per row: rows of a lesson may run side by side (jobs.side_by_side).
    run_dir = project.build / "run" / store.LESSON.folder / lesson.name / fw.name
    run_dir.mkdir(parents=True, exist_ok=True)
    kernel_env = environments.child_variables(project, fw, profile)
    execution = execute(snippet, fw.kernel_name, kernel_env, run_dir, context.options.timeout, fw.kernel_transport)
    for note in execution.notes:       # (a kernel that died as it started, started again)
        context.log(f"  lesson {note}")
    if side_by_side(context) == 1:     # (side by side, the stage's wall time is its phase)
        CLOCK.add("lessons: kernel start-ups", execution.kernel_seconds)
        CLOCK.add("lessons: scripts", execution.wall_seconds - execution.kernel_seconds)
    env = context.envs[fw.name]
    result = record(context, lesson, fw, execution.status)
    packages = env.fingerprint.get("packages", {})
    result.update({
        "error": execution.error, "variants": execution.metrics.get("variants", {}),
        "notebook": f"{fw.name}.ipynb", "cache_key": key,
        "steps": {step: round(seconds, 3) for step, seconds in execution.step_seconds.items()},
        "provenance": {
            "date": results.now(),
            "framework_versions": results.key_packages(fw, {**packages, "python": env.fingerprint.get("python")}),
            "environment_sha256": env.fingerprint_hash, "machine": context.machine_info, "profile": profile,
            "sizes": lesson.profiles.get(profile, {}), "settings": lesson.settings,
            "repeats": execution.metrics.get("repeats"), "warmup": execution.metrics.get("warmup"),
            "data_source": execution.context.get("data_source", ""),
            "snippet": results.snippet_commit(lesson.snippet_path(fw)),
            "code": lesson_code(lesson, fw),
            "timing": "monotonic clock around each variant call, inside the kernel (rosetta/lesson.py)",
            "side_by_side": side_by_side(context),     # scripts running at once (more than one: measures nothing)
            "wall_seconds": round(execution.wall_seconds, 3),
        },
    })
    if execution.status != Outcome.OK:
        result["reason"] = f"{execution.error['ename']}: {execution.error['evalue']}".strip()
    return result, nbformat.writes(execution.notebook)


def parsed_scripts(lesson: Lesson, frameworks: list[Framework]) -> tuple[dict, dict]:
    """The lesson's scripts, parsed (by path: rows that run one program share its file), and one problem per
    script that cannot be parsed or is misaligned with the others."""
    parsed, broken = {}, {}
    for path in {lesson.snippet_path(fw) for fw in lesson.frameworks(frameworks)}:
        try:
            parsed[path] = parse(path, lesson)
        except SnippetError as exc:
            broken[path] = str(exc)
    for problem in check_alignment(lesson, list(parsed.values()), frameworks):
        broken.setdefault(Path(problem.split(":")[0]), problem)
    return parsed, broken


def blocked(context: RunContext, lesson: Lesson, fw: Framework, broken: dict) -> Blocked | None:
    env = context.envs.get(fw.name)
    if lesson.snippet_path(fw) in broken:
        return Blocked(Outcome.SNIPPET_ERROR, broken[lesson.snippet_path(fw)])
    # At smoke (the tests), a GPU lesson runs anyway: it checks the script, and judges nothing.
    # (The machine that measured, which a publishing build is not: its description says.)
    if lesson.requires == "gpu" and not context.machine_info.get("gpus") and context.profile != "smoke":
        return Blocked(Outcome.NEEDS_GPU, "this lesson is only judged on a machine with a GPU, and this one has none",
                       say="needs a GPU, not run here")
    if env is None or not env.ok:
        return Blocked(Outcome.NOT_INSTALLED, env.reason if env else "environment not set up", keep_previous=True)
    return None


def jobs(context: RunContext, lesson: Lesson, selected: frozenset[str]) -> list[Job]:
    """One job per framework the lesson has a script for; `selected`: the rows measured where stale."""
    parsed, broken = parsed_scripts(lesson, list(context.frameworks))
    profile = context.profile
    kind = data_kind(lesson, profile)
    data = Data(lesson.data_module, kind, lesson.profiles.get(profile, {}).get("data", "real") == "real"
                and bool(lesson.data_module), lambda: lesson_settings(lesson, profile), "lessons: data")
    return [Job(store.LESSON, f"{lesson.name}/{fw.name}", fw.name,
                store.LESSON.path(context.project.results, context.machine, profile, lesson.name, fw.name),
                fw.name in selected,
                key=lambda fw=fw: cache_key(lesson, fw, context.envs[fw.name].fingerprint_hash, profile,
                                            context.machine, data.identity()),
                run=lambda key, fw=fw: run_row(context, lesson, fw, parsed[lesson.snippet_path(fw)], key),
                not_run=lambda status, reason, fw=fw: record(context, lesson, fw, status, reason),
                blocked=blocked(context, lesson, fw, broken), data=data, doing=f"measuring lesson {lesson.name}")
            for fw in lesson.frameworks(list(context.frameworks))]


def lesson_settings(lesson: Lesson, profile: str):
    """The settings a data module's prepare() reads (vocabulary size...), as the scripts see them."""
    return lesson_helper.settings(lesson.name, profile, root=lesson.folder.parent)


def main(argv=None) -> int:
    """python -m rosetta.build.lessons [LESSON...] [--profile P]: the verdicts of the stored results, as text."""
    import argparse

    parser = argparse.ArgumentParser(description="Print the verdicts of the lessons' stored results.")
    parser.add_argument("lessons", nargs="*")
    parser.add_argument("--profile")
    args = parser.parse_args(argv)
    project = Project(root=REPO_ROOT)
    found, problems = all_lessons(project)
    try:
        profile = resolve_profile(args.profile)
        chosen = pick(",".join(args.lessons), found)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for problem in problems:
        print(problem)
    for lesson in chosen:
        print(f"{lesson.name}:")
        for result in store.all_stored(project, store.LESSON, lesson.name):
            if result["profile"] != profile:
                continue
            where = f"{result['framework']} on {result['machine']}"
            if result["status"] != Outcome.OK:
                print(f"  {where}: {result['status']}: {result.get('reason', '')}")
                continue
            for variant, measured in result["variants"].items():
                print(f"  {where}: {variant}: " + ", ".join(
                    f"{metric} {sorted(values)}" for metric, values in measured.items()))
            with_gpu = bool(((result.get("provenance") or {}).get("machine") or {}).get("gpus"))
            for rule in lesson.rules:
                if rule.get("frameworks") and result["framework"] not in rule["frameworks"]:
                    continue
                off = device_reason(rule, with_gpu, result["machine"])
                if off:
                    print(f"  {where}: {rule['claim']}: {off[0]} ({off[1]})")
                    continue
                found_verdict = judge(rule, result["variants"])
                print(f"  {where}: {rule['claim']}: {found_verdict['verdict']} "
                      f"(effect {found_verdict.get('effect')}, range {found_verdict.get('low')} to "
                      f"{found_verdict.get('high')})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
