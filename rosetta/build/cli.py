"""The command line over the stages (stages.py): environments -> machine -> benchmark rows, equivalence checks
and lessons (jobs.py) -> pages -> Sphinx.

The command line is read once into the run context (context.py) that every stage reads; nothing below
this module sees `args`. One (example, framework) that fails never stops the others: its result says why,
the page shows it, and ``--strict`` turns any failure into a non-zero exit at the end.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import model
from ..project import PROFILES, REPO_ROOT, Project, UsageError, check_name, resolve_profile
from ..site import gather, pages
from . import lessons, stages, variables
from .context import Options, RunContext, Selection
from .files import BuildBusy, BuildLock, UnwritableError
from .phases import CLOCK
from .signals import Doing, doing, interrupt_on_signals, restore_signals


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
                        help="resolve every envs/*.txt into its .lock again (keeping the versions it already pins "
                             "where the .txt still allows them), then stop")
    parser.add_argument("--no-sphinx", action="store_true", help="stop after writing the pages")
    parser.add_argument("--measure-only", action="store_true",
                        help="set up, execute and write the results folder; no pages, no Sphinx (make measure)")
    parser.add_argument("--from-results", type=Path, action="append", metavar="DIR",
                        help="build the site from results measured elsewhere (a results folder; repeat for "
                             "several machines), executing nothing (make publish)")
    parser.add_argument("--no-equivalence", action="store_true",
                        help="skip the cross-framework equivalence checks and the ONNX conversions "
                             "(pages keep the last ones)")
    parser.add_argument("--equivalence-only", action="store_true",
                        help="run the selected examples' equivalence checks (and ONNX conversions) alone, none "
                             "of their rows (make reference ROWS=<example>/equivalence)")
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


def data_modules(examples, all_lessons) -> set[str]:
    """The data modules that the examples and lessons read (what ROSETTA_DATA folders are checked for)."""
    return {ex.data_module for ex in examples} | {lesson.data_module for lesson in all_lessons}


def context_of(args) -> RunContext:
    """The run context of the command line (UsageError: a name or a setting that cannot be used)."""
    published = tuple(folder.resolve() for folder in args.from_results or [])
    project = Project(root=args.root.resolve(), results=args.results.resolve() if args.results else None)
    model.check_project(project)          # (every row's and example's file: a misspelt key stops here, named)
    profile = resolve_profile(args.profile) if not published or args.profile else None
    all_frameworks, all_examples = project.frameworks(), project.examples()
    all_lessons, lesson_problems = lessons.all_lessons(project)
    if args.repeats < 1:
        raise UsageError("--repeats must be at least 1")
    if published and (args.measure_only or args.setup_only or args.lock):
        raise UsageError("--from-results builds from results measured elsewhere: it cannot also set up or measure")
    selection = Selection(
        frameworks=frozenset(fw.name for fw in pick("framework", args.frameworks, all_frameworks)),
        examples=frozenset(ex.name for ex in pick("example", args.examples, all_examples)),
        lessons=frozenset(lesson.name for lesson in lessons.pick(args.lessons, all_lessons)))
    options = Options(force=args.force, repeats=args.repeats, timeout=args.timeout, strict=args.strict,
                      equivalence=not args.no_equivalence, equivalence_only=args.equivalence_only,
                      setup_only=args.setup_only, lock=args.lock, measure_only=args.measure_only,
                      sphinx=not args.no_sphinx, output=args.output, published=published)
    return RunContext(project, profile, options, selection, variables.read(), tuple(all_frameworks),
                      tuple(all_examples), tuple(all_lessons), tuple(lesson_problems))


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        context = context_of(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for line in variables.path_problems(context.variables, data_modules(context.examples, context.lessons)):
        context.log(f"warning: {line}")     # (named, not silently ignored)
    lock = BuildLock(context.project.build / "build.lock")
    try:
        lock.acquire(args.wait, on_wait=lambda holder: context.log(f"waiting up to {args.wait:g} s: "
                                                                   + lock.describe(holder)))
    except BuildBusy as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    interrupt_on_signals()
    try:
        return build(context)
    except KeyboardInterrupt as exc:
        context.log(f"interrupted ({str(exc) or 'SIGINT'}) while {Doing.now}: every result that finished is kept and "
                    "none is half written; the next build continues from here (finished snippets are not run again)")
        return 130
    except UnwritableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        lock.release()
        restore_signals()


def build(context: RunContext) -> int:
    """The stages, in order, for the options given (main has checked them and holds the lock)."""
    CLOCK.reset()            # the build's clock: its phases, and the whole build's time
    options, log = context.options, context.log
    if options.lock:
        return stages.lock_all(context)
    if options.publishing:
        found, problems = stages.find_published(list(options.published), context.profile)
        for problem in problems:
            log(f"results: {problem}")
        if not found:
            print("error: no readable results in " + ", ".join(map(str, options.published)), file=sys.stderr)
            return 2
        context = stages.published(context, found)
    else:
        context = stages.set_up(context)
        if options.setup_only:
            chosen = [context.envs[name] for name in context.selection.frameworks]
            return 1 if options.strict and not all(env.ok for env in chosen) else 0
        context = stages.describe_machine(context)
    measured = stages.measure(context)
    if options.publishing:
        stages.report(context, measured)
    failures, mismatches = stages.failure_lines(context, measured)
    status = 0
    if options.measure_only:
        log(f"results: {context.project.results / context.machine / context.profile}")
    else:
        doing("writing the pages")
        with CLOCK.timing("pages"):
            written = pages.write_site(gather.common.SiteInput(
                context.project, list(context.examples), list(context.frameworks), measured.results,
                dict(context.envs), context.profile, context.machine, context.machine_info, measured.checked,
                gather.common.LessonsInput(list(context.lessons), measured.lessons, list(context.lesson_problems)),
                measured.converted))
        log(f"pages: {written} written or updated")
        if options.sphinx:
            status = stages.run_sphinx(context)
    stages.summary(context, failures, mismatches)
    if status:
        return status
    return 1 if (options.strict and (failures or mismatches)) else 0
