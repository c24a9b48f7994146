"""Where things live, and what exists: examples, frameworks, profiles.

Everything here is read from files (``snippets/<example>/example.toml``, ``envs/<framework>.toml``),
so adding an example or a framework is adding files. Names given by a user are checked here,
once, with a "did you mean" hint.
"""
from __future__ import annotations

import difflib
import functools
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
PROFILES = ("smoke", "cpu", "full")
# Results measured on reference machines, kept in git and shown by every build beside its own.
REFERENCE_RESULTS = "benchmarks/reference"
# Results-table columns when an example names none: derived metrics are computed by the build.
DEFAULT_TABLE_METRICS = (
    {"metric": "accuracy", "label": "test accuracy", "format": "percent"},
    {"metric": "throughput", "label": "samples/s", "format": "int"},
)


class UsageError(Exception):
    """A wrong name or setting given by the user: printed as one line, no traceback."""


def check_name(kind: str, name: str, known: list[str] | tuple[str, ...]) -> str:
    if name in known:
        return name
    hint = difflib.get_close_matches(name, known, n=1)
    did_you_mean = f" Did you mean {hint[0]!r}?" if hint else ""
    raise UsageError(f"unknown {kind} {name!r}.{did_you_mean} Known: {', '.join(known)}.")


@dataclass(frozen=True)
class Framework:
    name: str                 # file stem, e.g. "pytorch"; also the sync key of its tabs
    label: str                # what the reader sees, e.g. "PyTorch"
    api: str                  # API level, e.g. "Gluon, hybridized"
    order: int
    requirements: Path
    packages: tuple[str, ...] = ()   # the distributions whose versions name this tab's framework
    install_first: tuple[str, ...] = ()
    no_build_isolation: bool = False
    definition: Path | None = None   # envs/<name>.toml
    matmul: str = ""                 # code defining make(a, b): the framework's own float32 product (peak)
    # One program may be run by several rows (Keras 3 on three backends): the row names the program
    # (the snippets' file stem), the environment it runs in (another row's venv and kernel) and the
    # environment variables that make the difference (KERAS_BACKEND). Defaults: all the row's own.
    program: str = ""
    program_label: str = ""          # the tab label of a program that several rows run
    backend: str = ""                # what tells this row apart from the program's other rows
    environment: str = ""
    environment_label: str = ""      # the label of the row that owns the environment (kernel display name)
    variables: dict = field(default_factory=dict)
    install_notes: str = ""          # markdown for the framework page: what installing it here took
    # A row in another language runs its own Jupyter kernel: `<row>.js` snippets, a kernel command
    # (Deno's), and npm packages fetched into its environment. Defaults: Python and ipykernel.
    language: str = "python"
    kernel_argv: tuple[str, ...] = ()
    npm: tuple[str, ...] = ()         # exact "name@version" specs
    working_files: dict = field(default_factory=dict)   # file name -> text, written into the kernel's folder
    # Kernels listen on local socket files (Jupyter's "ipc" transport), which other users of a shared
    # machine cannot reach; a kernel that only speaks TCP (Deno's) says "tcp" (on 127.0.0.1).
    kernel_transport: str = "ipc"
    math: dict = field(default_factory=dict)     # [math]: the row's math mode on a GPU, shown on the pages

    def __post_init__(self):
        object.__setattr__(self, "program", self.program or self.name)
        object.__setattr__(self, "environment", self.environment or self.name)
        object.__setattr__(self, "program_label", self.program_label or self.label)
        object.__setattr__(self, "backend", self.backend or self.label)
        object.__setattr__(self, "environment_label", self.environment_label or self.label)

    @property
    def kernel_name(self) -> str:
        return f"rosetta-{self.environment}"

    @property
    def suffix(self) -> str:
        return SUFFIXES[self.language]

    def script(self, folder: Path) -> Path:
        """This row's script in a folder of per-framework scripts: `<row>.py` where the folder has one
        for this row alone (a lesson written for Keras on TensorFlow only), else `<program>.py`."""
        own = folder / f"{self.name}{self.suffix}"
        return own if own.exists() else folder / f"{self.program}{self.suffix}"


# The languages a row may be written in, and their snippets' file suffix (jupytext's percent format).
SUFFIXES = {"python": ".py", "javascript": ".js"}


def expand(text: str, venv: Path) -> str:
    """A setting's placeholders: {venv} (the row's environment folder) and {repo} (this repository).
    Other braces are left alone (Jupyter's {connection_file} in a kernel command)."""
    return text.replace("{venv}", str(venv)).replace("{repo}", str(REPO_ROOT))


def script_in(folder: Path, fw: Framework | str) -> Path:
    """The script a row runs in a folder of per-framework scripts (see Framework.script), or the file
    of a program named by a string."""
    return fw.script(folder) if isinstance(fw, Framework) else folder / f"{fw}.py"


@dataclass(frozen=True)
class Example:
    name: str
    folder: Path
    title: str
    short_title: str
    steps: tuple[str, ...]
    timed_step: str           # the step whose wall time is the benchmark's headline figure
    throughput_unit: str      # e.g. "images/s": samples of the timed step per second
    data_module: str          # module with prepare() that fetches and decodes the data once
    weights: str              # where the model's weights come from (provenance)
    hyperparameters: dict
    profiles: dict            # profile name -> sizes (dict)
    reference: dict = field(default_factory=dict)   # the original study's figures, per framework
    order: int = 100
    summary: str = ""
    samples_metric: str = "train_samples"   # reported count of samples the timed step processed
    table_metrics: tuple = ()               # the metric columns of the results table
    failure_hints: dict = field(default_factory=dict)   # step -> what to try when it fails
    row_sizes: dict = field(default_factory=dict)       # row -> profile -> sizes that replace the profile's
    # step -> its sub-parts in reading order, which every program marks with `# [part] ...` comment lines
    # (rosetta/build/snippets.py checks them; the side-by-side view pairs two programs' lines by them).
    parts: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def sizes(self, profile: str, row: str | None = None) -> dict:
        """A profile's sizes, for one row: a row far slower than the others may run fewer samples."""
        return {**self.profiles.get(profile, {}), **self.row_sizes.get(row, {}).get(profile, {})}

    def snippet_path(self, fw: Framework | str) -> Path:
        return script_in(self.folder, fw)


@dataclass(frozen=True)
class Project:
    """The folders of one project; the real one, or a tiny one made by a test."""
    root: Path
    snippets: Path = field(default=None)
    lessons: Path = field(default=None)       # lessons/<lesson>/: lesson.toml and one script per framework
    envs: Path = field(default=None)          # requirements + framework descriptions (tracked)
    venvs: Path = field(default=None)         # the virtual environments themselves (ignored)
    docs: Path = field(default=None)
    results: Path = field(default=None)
    build: Path = field(default=None)
    # Results of other machines shown beside this build's: the folders given to --from-results and the
    # reference results kept in the repository (benchmarks/reference/).
    extra_results: tuple = ()

    def __post_init__(self):
        defaults = {
            "snippets": self.root / "snippets",
            "lessons": self.root / "lessons",
            "envs": self.root / "envs",
            "venvs": Path(os.environ.get("ROSETTA_VENVS", self.root / ".envs")),
            "docs": self.root / "docs",
            "results": self.root / "results",
            "build": self.root / "_build",
        }
        for key, value in defaults.items():
            if getattr(self, key) is None:
                object.__setattr__(self, key, Path(value))
        if not self.extra_results:
            object.__setattr__(self, "extra_results", (self.root / REFERENCE_RESULTS,))

    @property
    def generated(self) -> Path:
        return self.docs / "_gen"

    def frameworks(self) -> list[Framework]:
        """Every framework; with a GPU visible, its `<name>.gpu.txt` requirements where it has them."""
        found = []
        gpu = gpu_visible()
        definitions = {p.stem: p for p in sorted(self.envs.glob("*.toml")) if p.stem != "docs"}
        metas = {name: tomllib.loads(path.read_text()) for name, path in definitions.items()}
        for name, meta in metas.items():
            environment = meta.get("environment", name)
            if environment not in metas:
                raise UsageError(f"{definitions[name]}: environment {environment!r} has no envs/{environment}.toml")
            owner = metas[environment]            # install settings come from the environment's own row
            found.append(Framework(
                name=name,
                label=meta["label"],
                api=meta.get("api", ""),
                order=int(meta.get("order", 100)),
                requirements=requirements_file(definitions[environment], gpu),
                packages=tuple(meta.get("packages", ())),
                install_first=tuple(owner.get("install_first", ())),
                no_build_isolation=bool(owner.get("no_build_isolation", False)),
                definition=definitions[environment],
                matmul=meta.get("matmul", ""),
                program=meta.get("program", ""),
                program_label=meta.get("program_label", ""),
                backend=meta.get("backend", ""),
                environment=environment,
                environment_label=owner["label"],
                variables={str(k): str(v) for k, v in meta.get("variables", {}).items()},
                install_notes=meta.get("install_notes", ""),
                language=check_name("language", owner.get("language", "python"), list(SUFFIXES)),
                kernel_argv=tuple(owner.get("kernel_argv", ())),
                npm=tuple(owner.get("npm", ())),
                working_files=dict(owner.get("working_files", {})),
                kernel_transport=check_name("kernel transport", owner.get("kernel_transport", "ipc"), ["ipc", "tcp"]),
                math={str(k): str(v) for k, v in meta.get("math", {}).items()},
            ))
        return sorted(found, key=lambda fw: (fw.order, fw.name))

    def examples(self) -> list[Example]:
        found = [load_example(p.parent) for p in sorted(self.snippets.glob("*/example.toml"))]
        return sorted(found, key=lambda ex: (ex.order, ex.name))

    def framework(self, name: str) -> Framework:
        by_name = {fw.name: fw for fw in self.frameworks()}
        return by_name[check_name("framework", name, list(by_name))]

    def example(self, name: str) -> Example:
        by_name = {ex.name: ex for ex in self.examples()}
        return by_name[check_name("example", name, list(by_name))]


def requirements_file(toml_path: Path, gpu: bool) -> Path:
    gpu_variant = toml_path.with_suffix(".gpu.txt")
    return gpu_variant if gpu and gpu_variant.exists() else toml_path.with_suffix(".txt")


def load_example(folder: Path) -> Example:
    meta = tomllib.loads((folder / "example.toml").read_text())
    profiles = meta.get("profiles", {})
    for name in profiles:
        check_name("profile", name, PROFILES)
    return Example(
        name=folder.name,
        folder=folder,
        title=meta["title"],
        short_title=meta.get("short_title", meta["title"]),
        steps=tuple(meta["steps"]),
        timed_step=meta["timed_step"],
        throughput_unit=meta.get("throughput_unit", "samples/s"),
        data_module=meta.get("data_module", ""),
        weights=meta.get("weights", ""),
        hyperparameters=dict(meta.get("hyperparameters", {})),
        profiles={name: dict(sizes) for name, sizes in profiles.items()},
        reference=dict(meta.get("reference", {})),
        order=int(meta.get("order", 100)),
        summary=meta.get("summary", ""),
        samples_metric=meta.get("samples_metric", "train_samples"),
        table_metrics=tuple(meta.get("table_metrics", DEFAULT_TABLE_METRICS)),
        failure_hints=dict(meta.get("failure_hints", {})),
        row_sizes={row: {check_name("profile", name, PROFILES): dict(sizes) for name, sizes in by_profile.items()}
                   for row, by_profile in meta.get("row_sizes", {}).items()},
        parts=read_parts(meta.get("parts", {}), tuple(meta["steps"]), folder / "example.toml"),
    )


# A part's id, as a marker writes it: short lowercase words joined by hyphens ("training-step").
PART_ID = r"[a-z][a-z0-9-]*"


def read_parts(table: dict, steps: tuple[str, ...], where: Path) -> dict[str, tuple[str, ...]]:
    """An example's [parts] table: step -> its part ids in reading order. Every slip is one message
    naming the file: a marker could never name an id that is malformed, and a step that does not exist
    would leave its parts unchecked."""
    parts = {}
    for step, ids in table.items():
        if step not in steps:
            hint = difflib.get_close_matches(step, steps, n=1)
            did_you_mean = f" Did you mean {hint[0]!r}?" if hint else ""
            raise UsageError(f"{where}: [parts] names step {step!r}, which is not one of the example's steps "
                             f"({', '.join(steps)}).{did_you_mean}")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise UsageError(f"{where}: [parts] {step} must be a list of part names, is {ids!r}")
        bad = [i for i in ids if not re.fullmatch(PART_ID, i)]
        if bad:
            raise UsageError(f"{where}: [parts] {step}: {', '.join(map(repr, bad))} is not a part name "
                             f"(lowercase words joined by hyphens, e.g. 'training-step')")
        if len(set(ids)) != len(ids):
            raise UsageError(f"{where}: [parts] {step} names a part twice: {ids}")
        parts[step] = tuple(ids)
    return parts


@functools.lru_cache(maxsize=1)
def gpu_visible() -> bool:
    """True when an NVIDIA GPU answers; the default profile depends on it."""
    import shutil
    import subprocess
    if not shutil.which("nvidia-smi"):
        return False
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


def default_profile() -> str:
    return "full" if gpu_visible() else "cpu"


def resolve_profile(name: str | None) -> str:
    if not name:
        return default_profile()
    return check_name("profile", name, PROFILES)
