"""What a benchmark result records: the machine (described once, ``results/<machine>/machine.json``), its
environments, the cache key of a row and the provenance of its code. Where results live: store.py.
"""
from __future__ import annotations

import hashlib
import importlib
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..matmul_worker import rate
from ..project import REPO_ROOT, Example, Framework, Project
from . import environments, identity, store

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
    try:      # the newest CUDA the driver supports: in nvidia-smi's banner, not among its query fields
        banner = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        banner = ""
    cuda = re.search(r"CUDA Version:\s*([\d.]+)", banner)
    for gpu in gpus:
        gpu["driver_cuda"] = cuda.group(1) if cuda else None
    return gpus


def measure_peak(project: Project, frameworks: list[Framework], envs: dict, size: int = 2048) -> dict:
    """The machine's float32 matrix-multiply rate, the "peak" that the tables compare throughput with:
    the best rate of any environment's own product (each framework's `matmul` code in envs/<name>.toml,
    and numpy here), each the best of five size x size products after a warm-up. Libraries differ
    (numpy's BLAS may not use every instruction the CPU has), so the best one stands for the machine.
    Measured once per machine, before any snippet runs; see known_peak."""
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
                                  env={**os.environ, **environments.child_variables(project, fw,
                                                                                     TF_CPP_MIN_LOG_LEVEL="2")})
            by[fw.name] = round(json.loads(done.stdout.strip().splitlines()[-1])["gflops"], 1)
        except (OSError, subprocess.SubprocessError, ValueError, IndexError, KeyError):
            continue                        # that environment cannot say: the others still can
    best = max(by, key=by.get)
    return {"gflops": by[best], "by": by, "date": now(),
            "how": f"the fastest float32 {size}x{size} product of the environments ({best}), "
                   f"best of 5 on {os.cpu_count()} cores"}


def known_matmul_rate_in(root: Path, machine: str) -> dict | None:
    """The rate recorded in a results folder's machine.json, or None."""
    path = root / machine / "machine.json"
    try:
        return json.loads(path.read_text()).get("float32_matmul") if path.exists() else None
    except (json.JSONDecodeError, OSError):
        return None


def _cpu_flags() -> str:
    """The widest vector instructions the CPU has: with the model and cores, what sets its float32 rate."""
    try:
        flags = next((line.split(":", 1)[1].split() for line in Path("/proc/cpuinfo").read_text().splitlines()
                      if line.startswith(("flags", "Features"))), [])
    except OSError:
        flags = []
    return next((name for flag, name in (("avx512f", "AVX-512"), ("avx2", "AVX2"), ("avx", "AVX"),
                                         ("sve", "SVE"), ("asimd", "NEON")) if flag in flags), "")


def describe_machine() -> dict:
    memory_gib = None
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory_gib = round(pages / 2**30, 1)
    except (ValueError, OSError):
        pass
    return {"cpu": _cpu_model(), "cpu_flags": _cpu_flags(), "cores": os.cpu_count(), "memory_gib": memory_gib,
            "gpus": _gpus(), "os": platform.platform(), "python": platform.python_version()}


def hardware(machine: dict) -> dict:
    """What of a machine's description is its hardware (the OS and Python may change under it)."""
    return {"cpu": machine.get("cpu"), "cpu_flags": machine.get("cpu_flags"), "cores": machine.get("cores"),
            "gpus": [gpu.get("name") for gpu in machine.get("gpus", [])]}


def known_peak(root: Path, machine: dict) -> dict | None:
    """The float32 rate a results folder has on record for this hardware: measured once per machine."""
    for path in sorted(root.glob("*/machine.json")):
        try:
            recorded = json.loads(path.read_text())
        except (json.JSONDecodeError, OSError):
            continue
        if isinstance(recorded, dict) and recorded.get("float32_matmul") and hardware(recorded) == hardware(machine):
            return recorded["float32_matmul"]
    return None


def this_machine(project: Project, given: str = "") -> tuple[str, dict]:
    """This machine's id (`given`: ROSETTA_MACHINE) and description, with the rate on record in the project's
    results (if any)."""
    machine = describe_machine()
    peak = known_peak(project.results, machine)
    if peak:
        machine["float32_matmul"] = peak
    return machine_id(machine, given), machine


def peak_band(gflops: float) -> tuple[int, int]:
    """The doubling band a float32 rate falls in (25, 50, 100, 200, 400 ... GFLOP/s): two machines of one
    model whose rates differ by half (197 and 493 GFLOP/s have been seen on one kind) never share a name."""
    low = 25 * 2 ** max(0, math.floor(math.log2(max(gflops, 25) / 25)))
    return low, 2 * low


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _processor(machine: dict) -> str:
    return " ".join(re.sub(r"\((R|TM)\)|CPU|Processor|@.*|\d+-Core", "", machine["cpu"]).split())


def machine_id(machine: dict, given: str = "") -> str:
    """The name `given` (ROSETTA_MACHINE), else what makes a machine's numbers differ: the GPU, or the CPU
    model, its vector instructions and core count; then the band of its float32 rate, once measured."""
    if given:
        return slug(given)
    peak = machine.get("float32_matmul") or {}
    band = "{}-{}-gflops".format(*peak_band(peak["gflops"])) if peak.get("gflops") else ""
    if machine["gpus"]:
        return slug(f"{len(machine['gpus'])}x {machine['gpus'][0]['name']} {band}")
    return slug(f"{_processor(machine)} {machine.get('cpu_flags', '')} {machine['cores']} cores {band}")


def machine_label(machine: dict) -> str:
    """"NVIDIA H200 (143771 MiB, driver 570.1, CUDA 12.8)" or "2-core AMD EPYC 7B13 (AVX2), 400–800 GFLOP/s"."""
    peak = machine.get("float32_matmul") or {}
    band = ", {}–{} GFLOP/s".format(*peak_band(peak["gflops"])) if peak.get("gflops") else ""
    if machine["gpus"]:
        gpu = machine["gpus"][0]
        details = [gpu.get("memory"), gpu.get("driver") and f"driver {gpu['driver']}",
                   gpu.get("driver_cuda") and f"CUDA {gpu['driver_cuda']}"]
        count = f"{len(machine['gpus'])}x " if len(machine["gpus"]) > 1 else ""
        return f"{count}{gpu['name']} ({', '.join(d for d in details if d)})"
    flags = f" ({machine['cpu_flags']})" if machine.get("cpu_flags") else ""
    return f"{machine['cores']}-core {_processor(machine) or machine['cpu']}{flags}{band}"


# --- cache key and provenance -----------------------------------------------------------------

def code_hash(files: tuple[str, ...] | list[str], data_module: str = "") -> str:
    """Identity of package code that a kernel runs (a comment edit changes nothing), with a data module."""
    digest = hashlib.sha256()
    for entry in [*files, *([data_module.replace(".", "/") + ".py"] if data_module else [])]:
        path = REPO_ROOT / entry
        text = path.read_text() if path.exists() else ""
        substance = identity.python_identity(text) if entry.endswith(".py") and text else text
        digest.update(entry.encode() + substance.encode())
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


@dataclass(frozen=True)
class RunInputs:
    """How a row is run, for its cache key: the repeats, the resolved settings of the run (which include choices
    made by environment variables: ROSETTA_WEIGHTS), and which copy of the data set it reads (kind, path, size
    and time)."""
    repeats: int = 1
    settings: dict | None = None
    data: str = ""


def cache_key(example: Example, framework: Framework | str, env_hash: str, profile: str, machine: str,
              run: RunInputs) -> str:
    """Changes when anything that can change the measurement does."""
    repeats, settings, data = run.repeats, run.settings, run.data
    digest = hashlib.sha256()
    for part in (identity.snippet_identity(example.snippet_path(framework)).encode(),
                 identity.definition_identity(example.folder / "example.toml", row_name(framework)).encode(),
                 snippet_side_hash(example).encode(), env_hash.encode(), profile.encode(), machine.encode(),
                 str(repeats).encode(), json.dumps(settings or {}, sort_keys=True).encode(), data.encode()):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()


def repository_commit() -> dict:
    """The commit of the checkout that measured (provenance: which code, beyond the snippet itself)."""
    def git(*args):
        try:
            out = subprocess.run(["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.SubprocessError):
            return ""
        return out.stdout.strip() if out.returncode == 0 else ""
    return {"commit": git("rev-parse", "HEAD") or None, "uncommitted_changes": bool(git("status", "--porcelain"))}


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

def save_machine(project: Project, machine: str, description: dict) -> None:
    store.write_json(project.results / machine / "machine.json", description)


def recorded_environments(records: dict) -> dict:
    """The environments a measuring build recorded (environments.json), as the pages read them."""
    return {name: environments.EnvStatus(name, ok=bool(rec.get("ok")), reason=rec.get("reason", ""),
                                         fingerprint=rec.get("fingerprint") or {},
                                         existing_python=rec.get("existing_python", ""))
            for name, rec in records.items()}


# --- what code a result measured (for results read from other folders: stale or not) -----------

def code_record(script: Path, definition: Path, side_hash: str, row: str | None = None) -> dict:
    """What a result ran, in substance (see identity): the snippet's code without comments or part marks,
    the values of its example.toml (or lesson.toml) that reach the row's run, and the package code the
    snippet runs. A result measured elsewhere is stale when any of them differs from this checkout's."""
    return {"snippet_identity": identity.snippet_identity(script),
            "definition_identity": identity.definition_identity(definition, row), "helper_identity": side_hash}


def row_name(fw: Framework | str) -> str:
    return fw if isinstance(fw, str) else fw.name


def example_code(example: Example, fw: Framework | str) -> dict:
    return code_record(example.snippet_path(fw), example.folder / "example.toml", snippet_side_hash(example),
                       row_name(fw))


def code_changed(result: dict, now_record: dict) -> bool:
    """Whether what a result ran differs from this checkout's code. A result recorded in an older way
    (file hashes, or only its snippet's commit) cannot be compared in substance: it counts as changed."""
    recorded = result.get("provenance", {}).get("code")
    return recorded != now_record


# --- environments and the machine, as recorded by a measuring build (read by a publishing one) ----

def save_environments(project: Project, machine: str, envs: dict) -> Path:
    """Each environment's state and fingerprint, so that a build on another machine can show them."""
    return store.write_json(project.results / machine / "environments.json",
                      {name: {"ok": env.ok, "reason": env.reason, "fingerprint": env.fingerprint,
                              "existing_python": env.existing_python}
                       for name, env in envs.items()})


def load_machine(root: Path, machine: str) -> tuple[dict, dict]:
    """machine.json and environments.json of a results folder's machine; ResultFileError names the
    file and the problem when one is missing or unreadable."""
    found = []
    for name in ("machine.json", "environments.json"):
        path = root / machine / name
        try:
            found.append(json.loads(path.read_text()))
        except FileNotFoundError:
            raise store.ResultFileError(f"{path}: missing (a results folder of a machine has machine.json and "
                                  "environments.json, written by `make measure`)") from None
        except (json.JSONDecodeError, OSError) as exc:
            raise store.ResultFileError(f"{path}: unreadable: {exc}") from None
    return found[0], found[1]


def key_packages(fw: Framework, packages: dict) -> dict:
    wanted = [*fw.packages, "numpy", "python"]
    return {name: packages[name] for name in wanted if name in packages}
