"""Results stage: one JSON file per (machine, profile, example, framework), with provenance.

Layout: ``results/<machine>/machine.json`` (the machine, described once) and
``results/<machine>/<profile>/<example>/<framework>.json`` + ``<framework>.ipynb``.
The file carries ``api_version``; a file of another version is refused with a message and
treated as absent (so it is re-measured, never misread).
"""
from __future__ import annotations

import ast
import hashlib
import importlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from . import environments
from .project import REPO_ROOT, Example, Framework, Project

API_VERSION = 1
# The package code every snippet runs; with the example's own data module, a change here
# changes results (and only a change here, not in the build's own modules).
SNIPPET_SIDE_CODE = ("rosetta/__init__.py", "rosetta/settings.py", "rosetta/report.py", "rosetta/neutral.py",
                     "rosetta/project.py", "rosetta/data/__init__.py", "rosetta/data/fetch.py",
                     "rosetta/bridge.py", "rosetta/js/rosetta.ts")   # the JavaScript rows' side of the helper


# benchmarks/fairness.py writes, and the framework pages read, benchmarks/fairness/<machine>-<profile>.json.
FAIRNESS_FOLDER = "benchmarks/fairness"
FAIRNESS_FORMAT = 1


def file_sha256(path: Path) -> str | None:
    """A file's sha256, or None when it does not exist (provenance: which code was measured)."""
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


class ResultFileError(Exception):
    pass


# --- machine --------------------------------------------------------------------------------

def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _gpus() -> list[dict]:
    if not shutil.which("nvidia-smi"):
        return []
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return []
    gpus = []
    for line in out.stdout.strip().splitlines() if out.returncode == 0 else []:
        name, memory, driver = [part.strip() for part in line.split(",")]
        gpus.append({"name": name, "memory": memory, "driver": driver})
    return gpus


def measure_peak(project: Project, frameworks: list[Framework], envs: dict, size: int = 2048) -> dict:
    """The machine's float32 matrix-multiply rate, the "peak" that the tables compare throughput with:
    the best rate of any environment's own product (each framework's `matmul` code in envs/<name>.toml,
    and numpy here), each the best of five size x size products after a warm-up. Libraries differ
    (numpy's BLAS may not use every instruction the CPU has), so the best one stands for the machine.
    Measured once per machine, before any snippet runs; see known_matmul_rate."""
    from .matmul_worker import rate
    by = {"numpy (build)": round(rate(lambda a, b: lambda: a @ b, size), 1)}
    for fw in frameworks:
        env = envs.get(fw.name)
        if not (fw.matmul and env is not None and env.ok):
            continue
        project.build.mkdir(parents=True, exist_ok=True)
        code = project.build / f"matmul-{fw.name}.py"
        code.write_text(fw.matmul)
        try:
            done = subprocess.run([str(env.python), "-P", "-m", "rosetta.matmul_worker", str(code), str(size)],
                                  cwd=project.build, capture_output=True, text=True, timeout=600,
                                  env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2",
                                       **environments.process_variables(project, fw)})
            by[fw.name] = round(json.loads(done.stdout.strip().splitlines()[-1])["gflops"], 1)
        except (OSError, subprocess.SubprocessError, ValueError, IndexError, KeyError):
            continue                        # that environment cannot say: the others still can
    best = max(by, key=by.get)
    return {"gflops": by[best], "by": by, "date": now(),
            "how": f"the fastest float32 {size}x{size} product of the environments ({best}), "
                   f"best of 5 on {os.cpu_count()} cores"}


def known_matmul_rate(project: Project, machine: str) -> dict | None:
    """The rate on record for this machine, so that it is measured once, not at every build."""
    path = project.results / machine / "machine.json"
    try:
        return json.loads(path.read_text()).get("float32_matmul") if path.exists() else None
    except json.JSONDecodeError:
        return None


def describe_machine() -> dict:
    memory_gib = None
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory_gib = round(pages / 2**30, 1)
    except (ValueError, OSError):
        pass
    return {"cpu": _cpu_model(), "cores": os.cpu_count(), "memory_gib": memory_gib,
            "gpus": _gpus(), "os": platform.platform(), "python": platform.python_version()}


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def machine_id(machine: dict) -> str:
    """ROSETTA_MACHINE, else a readable name: the GPU, or the CPU model and core count."""
    if os.environ.get("ROSETTA_MACHINE"):
        return slug(os.environ["ROSETTA_MACHINE"])
    if machine["gpus"]:
        return slug(f"{len(machine['gpus'])}x {machine['gpus'][0]['name']}")
    model = re.sub(r"\((R|TM)\)|CPU|Processor|@.*|\d+-Core", "", machine["cpu"])
    return slug(f"{model} {machine['cores']} cores")


def machine_label(machine: dict) -> str:
    if machine["gpus"]:
        return f"{machine['gpus'][0]['name']} ({machine['gpus'][0]['memory']})"
    return f"{machine['cores']}-core {machine['cpu']}"


# --- cache key and provenance -----------------------------------------------------------------

def code_identity(source: str) -> str:
    """What a module does, not how it is commented: its syntax tree without docstrings."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body \
                and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant) \
                and isinstance(node.body[0].value.value, str):
            node.body = node.body[1:] or [ast.Pass()]
    return ast.dump(tree)


def code_hash(files: tuple[str, ...] | list[str], data_module: str = "") -> str:
    """Identity of package code that a kernel runs (a comment edit changes nothing), with a data module."""
    digest = hashlib.sha256()
    for entry in [*files, *([data_module.replace(".", "/") + ".py"] if data_module else [])]:
        path = REPO_ROOT / entry
        text = path.read_text() if path.exists() else ""
        digest.update(entry.encode() + (code_identity(text) if entry.endswith(".py") and text else text).encode())
    return digest.hexdigest()


def snippet_side_hash(example: Example) -> str:
    """Identity of the package code the example's snippets run."""
    return code_hash(SNIPPET_SIDE_CODE, example.data_module)


def data_identity(data_module: str, kind: str) -> str:
    """Which data a run would read, found without downloading: part of the cache keys, so that
    switching ROSETTA_DATA from a JPEG copy to the official archive measures again."""
    if kind != "real" or not data_module:
        return kind
    module = importlib.import_module(data_module)
    if not hasattr(module, "locate"):
        return "real (its data module does not say which copy)"
    source = module.locate()
    return f"{source.kind}: {source.identity()}" if source is not None else "not found yet"


def cache_key(example: Example, framework: Framework | str, env_hash: str, profile: str, machine: str,
              repeats: int, settings: dict | None = None, data: str = "") -> str:
    """Changes when anything that can change the measurement does; `settings` are the resolved
    settings of the run, which include choices made by environment variables (ROSETTA_WEIGHTS);
    `data` says which copy of the data set it reads (kind, path, size and time)."""
    digest = hashlib.sha256()
    for part in (example.snippet_path(framework).read_bytes(),
                 (example.folder / "example.toml").read_bytes(),
                 snippet_side_hash(example).encode(), env_hash.encode(), profile.encode(), machine.encode(),
                 str(repeats).encode(), json.dumps(settings or {}, sort_keys=True).encode(), data.encode()):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()


def snippet_commit(path: Path) -> dict:
    def git(*args):
        try:
            out = subprocess.run(["git", *args], cwd=path.parent, capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.SubprocessError):
            return ""
        return out.stdout.strip() if out.returncode == 0 else ""
    return {"commit": git("log", "-1", "--format=%H", "--", path.name) or None,
            "uncommitted_changes": bool(git("status", "--porcelain", "--", path.name))}


def summarise(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "runs": values}


def now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


# --- files --------------------------------------------------------------------------------------

def result_dir(project: Project, machine: str, profile: str, example: str) -> Path:
    return project.results / machine / profile / example


def result_path(project: Project, machine: str, profile: str, example: str, framework: str) -> Path:
    return result_dir(project, machine, profile, example) / f"{framework}.json"


def write_json(path: Path, data: dict) -> Path:
    """Written beside and renamed into place: a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(".json.part")
    part.write_text(json.dumps(data, indent=1, sort_keys=True))
    part.replace(path)
    return path


def save(project: Project, result: dict) -> Path:
    return write_json(result_path(project, result["machine"], result["profile"], result["example"],
                                  result["framework"]), result)


def load(path: Path) -> dict:
    data = json.loads(path.read_text())
    if data.get("api_version") != API_VERSION:
        raise ResultFileError(f"{path}: results format {data.get('api_version')!r}, this build reads "
                              f"{API_VERSION}; it will be measured again")
    return data


def save_machine(project: Project, machine: str, description: dict) -> None:
    path = project.results / machine / "machine.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(description, indent=1, sort_keys=True))


def all_results(project: Project, example: str) -> list[dict]:
    """Every readable result of an example, on every machine and profile."""
    found = []
    for path in sorted(project.results.glob(f"*/*/{example}/*.json")):
        try:
            found.append(load(path))
        except (ResultFileError, json.JSONDecodeError):
            continue
    return found


def key_packages(fw: Framework, packages: dict) -> dict:
    wanted = [*fw.packages, "numpy", "python"]
    return {name: packages[name] for name in wanted if name in packages}
