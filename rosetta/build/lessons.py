"""Lessons stage: each lesson of lessons/<lesson>/ executed in every framework it has a script for.

A lesson is files only: ``lesson.toml`` (the claim, its source, the variants, the decision
rules, the sizes per profile), a ``README.md`` (the lesson in words) and one jupytext script
per framework (``<framework>.py``, cut into the lesson's steps, ending with one
``lesson.compare`` call). Scripts run like the benchmarks: in their framework's kernel, one
at a time, cached by content, environment, profile and machine; a failure is recorded and
shown, never fatal. Verdicts are computed from the stored numbers when the pages are written
(rosetta/build/verdict.py), so no verdict is ever typed.
"""
from __future__ import annotations

import hashlib
import importlib
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from ..data.fetch import DataError
from ..project import PROFILES, REPO_ROOT, Framework, Project, UsageError, check_name, script_in
from . import environments, identity, results
from .execute import execute
from .files import write_atomically
from .phases import CLOCK
from .snippets import Snippet, SnippetError, check_alignment, parse
from .verdict import RuleError, check_rule

API_VERSION = 1
RESULTS_FOLDER = "_lessons"            # results/<machine>/<profile>/_lessons/<lesson>/<framework>.json
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

    def snippet_path(self, fw: Framework | str) -> Path:
        return script_in(self.folder, fw)

    def frameworks(self, known: list[Framework]) -> list[Framework]:
        return [fw for fw in known if self.snippet_path(fw).exists()]


def load_lesson(folder: Path) -> Lesson:
    path = folder / "lesson.toml"
    try:
        meta = tomllib.loads(path.read_text())
        variants = dict(meta["variants"])
        rules = tuple(dict(rule) for rule in meta.get("rules", ()))
        profiles = {name: dict(sizes) for name, sizes in meta.get("profiles", {}).items()}
        lesson = Lesson(name=folder.name, folder=folder, title=meta["title"], claim=meta["claim"],
                        source=meta.get("source", ""), variants=variants, rules=rules, profiles=profiles,
                        settings=dict(meta.get("settings", {})), steps=tuple(meta.get("steps", DEFAULT_STEPS)),
                        order=int(meta.get("order", 100)), concerns=tuple(meta.get("concerns", ())),
                        requires=meta.get("requires", ""), data_module=meta.get("data_module", ""))
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as exc:
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
    timed = any(rule["metric"] == "seconds" for rule in rules)
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
            found.append(load_lesson(path.parent))
        except LessonError as exc:
            problems.append(str(exc))
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

def result_path(project: Project, machine: str, profile: str, lesson: str, framework: str) -> Path:
    return project.results / machine / profile / RESULTS_FOLDER / lesson / f"{framework}.json"


def save(project: Project, result: dict) -> None:
    results.write_json(result_path(project, result["machine"], result["profile"], result["lesson"],
                                   result["framework"]), result)


# The fields a lesson result must have for the pages and the verdicts to read it.
RESULT_FIELDS = ("lesson", "framework", "status", "cache_key")


def load(path: Path, log=lambda line: None) -> dict | None:
    """A stored lesson result, or None: one that cannot be read is named (`log`) and measured again."""
    try:
        return results.read_stored(path, API_VERSION, RESULT_FIELDS)
    except results.ResultFileError as exc:
        if path.exists():
            log(f"  {exc}: treated as missing, measured again")
        return None


def stored(project: Project, lesson: str) -> list[dict]:
    """Every readable result of a lesson, on every machine and profile of every results folder (this
    build's, those given to --from-results, the reference); each says which folder (`source`)."""
    found = []
    for root in results.results_roots(project):
        for path in sorted(root.glob(f"*/*/{RESULTS_FOLDER}/{lesson}/*.json")):
            result = load(path)
            if result:
                found.append({**result, "source": str(root)})
    return found


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


def data_identity(lesson: Lesson, profile: str) -> str:
    kind = lesson.profiles.get(profile, {}).get("data", lesson.settings.get("data", "real"))
    return results.data_identity(lesson.data_module, kind)


def record(lesson: Lesson, fw: Framework, profile: str, machine: str, machine_info: dict,
           status: str, reason: str = "") -> dict:
    return {"api_version": API_VERSION, "lesson": lesson.name, "framework": fw.name, "label": fw.label,
            "machine": machine, "machine_label": results.machine_label(machine_info), "profile": profile,
            "sizes": lesson.profiles.get(profile, {}), "status": status, "reason": reason, "error": None,
            "variants": {}, "notebook": None, "cache_key": None, "provenance": {"date": results.now()}}


# --- execution -------------------------------------------------------------------------------------

def run_one(project: Project, lesson: Lesson, fw: Framework, snippet: Snippet, env, profile: str, machine: str,
            machine_info: dict, timeout: int, key: str) -> dict:
    run_dir = project.build / "run" / RESULTS_FOLDER / lesson.name   # kernel cwd, outside lessons/
    run_dir.mkdir(parents=True, exist_ok=True)
    kernel_env = {"ROSETTA_PROFILE": profile, "ROSETTA_LESSONS": str(project.lessons),
                  "ROSETTA_SNIPPETS": str(project.snippets), "PYTHONHASHSEED": "0",
                  **environments.process_variables(project, fw)}
    execution = execute(snippet, fw.kernel_name, kernel_env, run_dir, timeout, fw.kernel_transport)
    CLOCK.add("lessons: kernel start-ups", execution.kernel_seconds)
    CLOCK.add("lessons: scripts", execution.wall_seconds - execution.kernel_seconds)
    out = result_path(project, machine, profile, lesson.name, fw.name)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(out.with_suffix(".ipynb"), nbformat.writes(execution.notebook))
    result = record(lesson, fw, profile, machine, machine_info, execution.status)
    packages = env.fingerprint.get("packages", {})
    result.update({
        "error": execution.error, "variants": execution.metrics.get("variants", {}),
        "notebook": out.with_suffix(".ipynb").name, "cache_key": key,
        "steps": {step: round(seconds, 3) for step, seconds in execution.step_seconds.items()},
        "provenance": {
            "date": results.now(),
            "framework_versions": results.key_packages(fw, {**packages, "python": env.fingerprint.get("python")}),
            "environment_sha256": env.fingerprint_hash, "machine": machine_info, "profile": profile,
            "sizes": lesson.profiles.get(profile, {}), "settings": lesson.settings,
            "repeats": execution.metrics.get("repeats"), "warmup": execution.metrics.get("warmup"),
            "data_source": execution.context.get("data_source", ""),
            "snippet": results.snippet_commit(lesson.snippet_path(fw)),
            "code": lesson_code(lesson, fw),
            "timing": "monotonic clock around each variant call, inside the kernel (rosetta/lesson.py)",
            "wall_seconds": round(execution.wall_seconds, 3),
        },
    })
    if execution.status != "ok":
        result["reason"] = f"{execution.error['ename']}: {execution.error['evalue']}".strip()
    save(project, result)
    return result


def build_lesson(project: Project, lesson: Lesson, frameworks: list[Framework], selected: set[str], envs: dict,
                 profile: str, machine: str, machine_info: dict, timeout: int, force: bool, log) -> dict[str, dict]:
    """framework -> this machine's result of one lesson: measured again where stale, else the last one."""
    out: dict[str, dict] = {}
    mine = lesson.frameworks(frameworks)
    parsed, broken = {}, {}          # by script: rows that run one program share its file
    for path in {lesson.snippet_path(fw) for fw in mine}:
        try:
            parsed[path] = parse(path, lesson)
        except SnippetError as exc:
            broken[path] = str(exc)
    for problem in check_alignment(lesson, list(parsed.values()), frameworks):
        broken.setdefault(Path(problem.split(":")[0]), problem)
    data_error = None
    data_ready = lesson.profiles.get(profile, {}).get("data", "real") != "real" or not lesson.data_module
    for fw in mine:
        path = result_path(project, machine, profile, lesson.name, fw.name)
        previous = load(path, log) if path.exists() else None
        env = envs.get(fw.name)
        if lesson.snippet_path(fw) in broken:
            out[fw.name] = record(lesson, fw, profile, machine, machine_info, "snippet-error",
                                  broken[lesson.snippet_path(fw)])
            continue
        # At smoke (the tests), a GPU lesson runs anyway: it checks the script, and judges nothing.
        # (The machine that measured, which a publishing build is not: its description says.)
        if lesson.requires == "gpu" and not machine_info.get("gpus") and profile != "smoke":
            out[fw.name] = record(lesson, fw, profile, machine, machine_info, "needs-gpu",
                                  "this lesson is only judged on a machine with a GPU, and this one has none")
            log(f"  {lesson.name}/{fw.name}: needs a GPU, not run here")
            continue
        if env is None or not env.ok:
            out[fw.name] = record(lesson, fw, profile, machine, machine_info, "not-installed",
                                  env.reason if env else "environment not set up")
            continue
        key = cache_key(lesson, fw, env.fingerprint_hash, profile, machine, data_identity(lesson, profile))
        current = previous is not None and previous.get("cache_key") == key
        if current and fw.name in selected and previous.get("status") in results.RETRIED:
            log(f"  {lesson.name}/{fw.name}: {previous['status']} last time: trying again")
            current = False
        if fw.name not in selected or (current and not force):
            if previous is not None:
                previous["stale"] = not current
                out[fw.name] = previous
                log(f"  {lesson.name}/{fw.name}: {'up to date' if current else 'stale (not selected)'}")
            continue
        if not data_ready and data_error is None:
            try:
                importlib.import_module(lesson.data_module).prepare(lesson_settings(lesson, profile))
                data_ready = True
            except DataError as exc:
                data_error = str(exc)
                log(f"  data: {data_error}")
        if data_error:
            out[fw.name] = record(lesson, fw, profile, machine, machine_info, "data-error", data_error)
            continue
        key = cache_key(lesson, fw, env.fingerprint_hash, profile, machine, data_identity(lesson, profile))
        result = run_one(project, lesson, fw, parsed[lesson.snippet_path(fw)], env, profile, machine, machine_info,
                         timeout, key)
        out[fw.name] = result
        log(f"  {lesson.name}/{fw.name}: {result['status']} in {result['provenance']['wall_seconds']:.1f} s"
            + (f" ({result['reason']})" if result["status"] != "ok" else ""))
    return out


def lesson_settings(lesson: Lesson, profile: str):
    """The settings a data module's prepare() reads (vocabulary size...), as the scripts see them."""
    from ..lesson import settings
    return settings(lesson.name, profile, root=lesson.folder.parent)


def main(argv=None) -> int:
    """python -m rosetta.build.lessons [LESSON...] [--profile P]: the verdicts of the stored results, as text."""
    import argparse

    from ..project import resolve_profile
    from .verdict import device_reason, judge
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
        for result in stored(project, lesson.name):
            if result["profile"] != profile:
                continue
            where = f"{result['framework']} on {result['machine']}"
            if result["status"] != "ok":
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
