"""Environment stage: one virtual environment and one Jupyter kernel per framework environment.

A framework's venv is made by uv from ``envs/<framework>.lock``: every package, transitive ones
included, pinned by ``uv pip compile`` from the hand-written ``envs/<framework>.txt`` (the lock
records the hash of the .txt it came from; a missing or outdated lock is made again, and should
then be committed). The venv is created only when it is missing or its lock changed (a marker
file holds the hash it was installed from). Each venv gets a ``.pth`` line that makes this
repository's ``rosetta`` package importable, and is registered as the kernel
``rosetta-<framework>`` in the build's own environment. The fingerprint (requirements hash +
every installed distribution and its version) is part of each result's cache key and provenance.

uv does not read pip's configuration: where pip has one (a mirror, extra indexes, a folder of
wheels), the same settings are handed to uv, so both install from the same places.

uv installs with ``--compile-bytecode``: every module's ``.pyc`` is written once, at install time. Without
it (uv's default) each process compiles what it imports again wherever Python may not write its cache
(``PYTHONDONTWRITEBYTECODE``, set on some CI machines): ``import tensorflow`` took 6.0 s instead of 2.3 s,
JAX 1.7 s instead of 0.7 s, in every kernel, worker and lesson of a build.

A row may run in another row's environment (``environment = "jax"`` in ``envs/keras-jax.toml``): it
shares that venv and kernel, and its own ``[variables]`` (``KERAS_BACKEND``) join its fingerprint.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import model
from ..project import REPO_ROOT, Framework, Project, expand
from . import variables
from .files import write_atomically

MARKER = "rosetta-installed.json"
LOCK_PYTHON = "3.11"          # the locks are universal (every platform), for this Python
LOCK_HEADER = "# requirements sha256: "
INSTALL_FLAGS = ("--compile-bytecode",)      # how every lock is installed (part of each venv's hash)

_LIST_PACKAGES = (  # names normalised as PEP 503 does: tensorflow_cpu -> tensorflow-cpu
    "import json, re, platform, importlib.metadata as m; "
    "print(json.dumps({'python': platform.python_version(), "
    "'packages': {re.sub(r'[-_.]+', '-', d.metadata['Name']).lower(): d.version "
    "for d in m.distributions() if d.metadata['Name']}}))"
)


@dataclass
class EnvStatus:
    framework: str
    ok: bool
    python: Path | None = None
    kernel_name: str = ""
    created: bool = False
    reason: str = ""                 # why it is not installed
    fingerprint: dict = field(default_factory=dict)
    seconds: float = 0.0             # how long creating it took (0 when it already existed)
    packages: int = 0                # how many packages were installed
    existing_python: str = ""        # set when ROSETTA_PYTHON_<ENVIRONMENT> named the interpreter

    @property
    def fingerprint_hash(self) -> str:
        return hashlib.sha256(json.dumps(self.fingerprint, sort_keys=True).encode()).hexdigest()


def lock_path(requirements: Path) -> Path:
    return requirements.with_suffix(".lock")


def file_hash(path: Path | None) -> str:
    return hashlib.sha256(path.read_bytes() if path is not None and path.exists() else b"").hexdigest()


def requirements_hash(fw: Framework) -> str:
    """What the venv is made from: the requirements, the lock, and how they are installed. (Not the rest
    of envs/<name>.toml: a new label or install note must not rebuild a venv or re-measure results.)"""
    digest = hashlib.sha256()
    for path in (fw.requirements, lock_path(fw.requirements)):
        digest.update(file_hash(path).encode())
    digest.update(json.dumps([list(fw.install_first), fw.no_build_isolation, *INSTALL_FLAGS]).encode())
    if fw.npm:            # (only when there are some: the hashes of the Python environments stay as they were)
        digest.update(json.dumps(list(fw.npm)).encode())
    return digest.hexdigest()


def existing_python_variable(fw: Framework) -> str:
    return variables.existing_python_variable(fw.environment)


def existing_python(fw: Framework) -> Path | None:
    return variables.existing_python(fw.environment)


def venv_folder(project: Project, fw: Framework) -> Path:
    """The environment's folder ({venv} in its settings): its venv, or the existing Python's prefix."""
    existing = existing_python(fw)
    if existing is not None:
        return existing.parent.parent
    return (project.venvs / fw.environment).absolute()


UNTIMED_PROFILES = ("smoke",)          # profiles whose runs check that scripts run, and measure nothing


def process_variables(project: Project, fw: Framework, profile: str = "") -> dict[str, str]:
    """The environment variables of every process that runs this row's code (kernel, equivalence
    worker, fairness harness, lessons): its name, for its own sizes, and its [variables], expanded; at a
    profile that times nothing (`profile` in UNTIMED_PROFILES), its [untimed_variables] too."""
    chosen = {**fw.variables, **(model.untimed_variables(fw) if profile in UNTIMED_PROFILES else {})}
    found = {"ROSETTA_ROW": fw.name, **{key: expand(value, venv_folder(project, fw)) for key, value in chosen.items()}}
    if existing_python(fw) is not None:   # no .pth file in someone else's Python: the path says where rosetta is
        found["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]))
    return found


def child_variables(project: Project, fw: Framework, profile: str = "", **extra: str) -> dict[str, str]:
    """What every process that runs a row's code gets on top of the build's own environment (a kernel, an
    equivalence or export worker, the fairness harness's runs, a probe of its versions or its peak): a fixed
    PYTHONHASHSEED (dict and set order as in every other run), the project's folders the helpers read
    (ROSETTA_SNIPPETS, ROSETTA_LESSONS), the profile (ROSETTA_PROFILE, where one is given), the row's own
    variables (process_variables), then `extra`."""
    found = {"PYTHONHASHSEED": "0", "ROSETTA_SNIPPETS": str(project.snippets), "ROSETTA_LESSONS": str(project.lessons),
             **({"ROSETTA_PROFILE": profile} if profile else {})}
    return {**found, **process_variables(project, fw, profile), **extra}


def kernel_argv(project: Project, fw: Framework) -> list[str]:
    """The command of the row's kernel: its own (Deno's) where it names one, else this venv's ipykernel."""
    if fw.kernel_argv:
        return [expand(part, venv_folder(project, fw)) for part in fw.kernel_argv]
    return [str(venv_python(project, fw)), "-m", "ipykernel_launcher", "-f", "{connection_file}"]


def venv_python(project: Project, fw: Framework) -> Path:
    return existing_python(fw) or project.venvs / fw.environment / "bin" / "python"


def base_python() -> str:
    return variables.base_python()


@functools.lru_cache(maxsize=8)
def pip_settings(python: str, pip_environment: tuple) -> dict[str, str]:
    """pip's own settings (`pip config list`: its files and PIP_* variables), read once per interpreter
    and set of PIP_* variables: every uv call of a build needs them."""
    try:
        listed = subprocess.run([python, "-m", "pip", "config", "list"], capture_output=True, text=True,
                                timeout=60, env={**os.environ, **dict(pip_environment)}).stdout
    except (OSError, subprocess.SubprocessError):
        listed = ""
    pip = {}
    for line in listed.splitlines():            # e.g. global.extra-index-url='file:///a file:///b'
        key, _, value = line.partition("=")
        pip[key.rsplit(".", 1)[-1]] = value.strip("'\"")
    return pip


def uv_environment() -> dict[str, str]:
    """The environment for uv: pip's index settings on this machine, where uv has none of its own."""
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never", "UV_NO_PROGRESS": "1"}
    pip = pip_settings(base_python(), tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("PIP_"))))
    for pip_key, uv_key in (("index-url", "UV_INDEX_URL"), ("extra-index-url", "UV_EXTRA_INDEX_URL"),
                            ("find-links", "UV_FIND_LINKS")):
        if pip.get(pip_key) and uv_key not in env:
            env[uv_key] = pip[pip_key] if pip_key != "find-links" else ",".join(pip[pip_key].split())
    if "UV_EXTRA_INDEX_URL" in env or "UV_FIND_LINKS" in env:
        env.setdefault("UV_INDEX_STRATEGY", "unsafe-best-match")   # pip's rule: the best version of any index
    return env


def uv(*args: str) -> list[str]:
    return [sys.executable, "-m", "uv", *args]


def end_process_tree(process: subprocess.Popen) -> None:
    """Kill a process and every process it started, and wait until all are gone. uv compiles bytecode in
    Python workers of its own: killed with uv alone, they went on writing into the venv after the build had
    stopped, and the next build could not remove it ("Directory not empty")."""
    import psutil  # (here, not above: this module installs the build's own venv, before psutil is in it)
    try:
        tree = [psutil.Process(process.pid), *psutil.Process(process.pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        tree = []
    for member in tree:
        try:
            member.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(tree, timeout=30)
    process.wait()


def _run(cmd: list[str], log, env: dict | None = None) -> str:
    """Run a command, its output into the log; returns its standard output. Interrupted (Ctrl-C, or SIGTERM,
    which the build turns into KeyboardInterrupt), it ends the command and all it started before going on."""
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) as process:
        try:
            stdout, stderr = process.communicate()
        except BaseException:
            end_process_tree(process)
            raise
    result = subprocess.CompletedProcess(cmd, process.returncode, stdout, stderr)
    output = (result.stdout + result.stderr).strip()
    log.write(f"$ {' '.join(cmd)}\n{output}\n")
    if result.returncode != 0:
        tail = [line for line in output.splitlines() if line.strip()][-6:]
        shown = " ".join(Path(c).name if i == 0 else c for i, c in enumerate(cmd[:5]))
        raise RuntimeError(f"`{shown} ...` failed: " + " | ".join(tail))
    return result.stdout


def lock_is_current(requirements: Path) -> bool:
    """The lock exists and was resolved from these requirements as they are now."""
    lock = lock_path(requirements)
    return lock.exists() and f"{LOCK_HEADER}{file_hash(requirements)}" in lock.read_text().splitlines()[:3]


def write_lock(requirements: Path, log, build_requirements: tuple[str, ...] = ()) -> Path:
    """Resolve the requirements into a lock that pins every package (uv pip compile, universal).
    `build_requirements` pin what an old sdist is built with while its metadata is read (a framework's
    install_first: Chainer's setup.py needs a setuptools that still has pkg_resources)."""
    lock = lock_path(requirements)
    with tempfile.TemporaryDirectory() as scratch:
        constraints, preferred = Path(scratch) / "build-constraints.txt", Path(scratch) / "preferred.lock"
        constraints.write_text("\n".join(build_requirements) + "\n")
        # uv keeps the versions of the file it writes to where the requirements still allow them: a package
        # added to the .txt adds itself and what it needs, and moves nothing the environment already pinned.
        if lock.exists():
            shutil.copyfile(lock, preferred)
        _run(uv("pip", "compile", str(requirements), "--universal", "--python-version", LOCK_PYTHON, "--no-header",
                "--build-constraints", str(constraints), "--output-file", str(preferred), "--quiet"),
             log, uv_environment())
        resolved = preferred.read_text()
    lock.write_text(f"# Every package, pinned: written by `make lock` (uv pip compile --universal --python-version "
                    f"{LOCK_PYTHON}) from {requirements.name}.\n"
                    f"{LOCK_HEADER}{file_hash(requirements)}\n{resolved.strip()}\n")
    return lock


def install_lock(python: str, lock: Path, log, build_flags: tuple[str, ...] = ()) -> int:
    """Exactly the lock's packages (markers decide per platform) into the environment of `python`."""
    _run(uv("pip", "install", "--python", python, "--no-deps", *INSTALL_FLAGS, *build_flags, "-r", str(lock)), log,
         uv_environment())
    return sum(1 for line in lock.read_text().splitlines() if line and not line.startswith(("#", " ")))


def _install(project: Project, fw: Framework, log) -> int:
    """A new venv with exactly the lock's packages; returns how many."""
    venv = project.venvs / fw.environment
    if venv.exists():
        shutil.rmtree(venv)
    env = uv_environment()
    python = str(venv / "bin" / "python")
    _run(uv("venv", "--python", base_python(), str(venv)), log, env)
    if fw.install_first:      # build requirements of an old sdist that cannot isolate its build
        _run(uv("pip", "install", "--python", python, *INSTALL_FLAGS, *fw.install_first), log, env)
    count = install_lock(python, lock_path(fw.requirements), log,
                         ("--no-build-isolation",) if fw.no_build_isolation else ())
    if fw.npm:
        count += _install_npm(project, fw, log)
    site = Path(subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True).stdout.strip())
    # What `pip install -e` would do, without needing a build backend in every venv:
    (site / "rosetta-stone.pth").write_text(str(REPO_ROOT) + "\n")
    # Written last, whole or not at all: a venv whose installation was cut off has no marker and is made again.
    write_atomically(venv / MARKER, json.dumps({"requirements_sha256": requirements_hash(fw)}))
    return count


def _install_npm(project: Project, fw: Framework, log) -> int:
    """npm packages (exact versions) into the environment's own Deno cache (DENO_DIR in its variables):
    Deno, installed from PyPI by the lock, fetches them from the npm registry, once."""
    deno = venv_folder(project, fw) / "bin" / "deno"
    if not deno.exists():
        raise RuntimeError(f"{fw.definition.name} lists npm packages but {fw.requirements.name} installs no deno")
    _run([str(deno), "cache", *(f"npm:{spec}" for spec in fw.npm)], log,
         {**os.environ, **child_variables(project, fw)})
    return len(fw.npm)


def npm_versions(fw: Framework) -> dict[str, str]:
    """name -> version of the npm packages, from their exact specs ("convnetjs@0.3.0", "@scope/x@1.0")."""
    return dict(spec.rsplit("@", 1) for spec in fw.npm)


def _kernel_spec(project: Project, fw: Framework) -> Path:
    return Path(sys.prefix) / "share" / "jupyter" / "kernels" / fw.kernel_name / "kernel.json"


def _register_kernel(project: Project, fw: Framework, log) -> None:
    if not fw.kernel_argv:
        _run([str(venv_python(project, fw)), "-m", "ipykernel", "install", "--prefix", sys.prefix,
              "--name", fw.kernel_name, "--display-name", f"Rosetta: {fw.environment_label}"], log)
        return
    spec = _kernel_spec(project, fw)         # a kernel of its own: the spec ipykernel would write, by hand
    spec.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(spec, json.dumps({"argv": kernel_argv(project, fw),
                                       "display_name": f"Rosetta: {fw.environment_label}",
                                       "language": fw.language}, indent=1))
    log.write(f"wrote {spec}\n")


def _spec_is_current(spec: Path, project: Project, fw: Framework) -> bool:
    """The registered kernel runs this environment's interpreter (and, for a kernel of its own, this command)."""
    try:
        argv = json.loads(spec.read_text())["argv"]
    except (OSError, ValueError, KeyError, TypeError):     # a spec cut off or edited: register it again
        return False
    wanted = kernel_argv(project, fw)
    return argv == wanted if fw.kernel_argv else argv[0] == wanted[0]


def is_current(project: Project, fw: Framework) -> bool:
    marker = project.venvs / fw.environment / MARKER
    if not (marker.exists() and venv_python(project, fw).exists()):
        return False
    try:
        recorded = json.loads(marker.read_text())
    except (OSError, ValueError):        # a marker that cannot be read vouches for nothing: install again
        return False
    return isinstance(recorded, dict) and recorded.get("requirements_sha256") == requirements_hash(fw)


def fingerprint(project: Project, fw: Framework) -> dict:
    out = subprocess.run([str(venv_python(project, fw)), "-c", _LIST_PACKAGES],
                         capture_output=True, text=True, check=True)
    listed = json.loads(out.stdout)
    existing = existing_python(fw)
    # An existing Python is what it is: its packages (all listed) identify it, not our requirements.
    found = {"requirements_sha256": requirements_hash(fw) if existing is None else None,
             "python": listed["python"], "packages": dict(sorted(listed["packages"].items()))}
    if existing is not None:
        found["existing_python"] = str(existing)
    found["packages"].update(npm_versions(fw))
    # Rows sharing a venv differ here (KERAS_BACKEND): part of their results' keys. (Not [untimed_variables]:
    # they reach no measurement, and a change to them must not make measured results stale.)
    if fw.variables:
        found["variables"] = dict(sorted(fw.variables.items()))
    return found


def ensure(project: Project, fw: Framework, create: bool = True, progress=lambda line: None,
           kernel: bool = True) -> EnvStatus:
    """Make sure the framework's venv and (unless `kernel` is false: an export environment runs workers only)
    its kernel exist; never raises for an install failure. `progress` hears what is being installed, before the
    minutes it may take."""
    project.venvs.mkdir(parents=True, exist_ok=True)
    log_path = project.venvs / f"{fw.environment}.log"
    status = EnvStatus(fw.name, ok=False, kernel_name=fw.kernel_name)
    if existing_python(fw) is not None:
        return _ensure_existing(project, fw, status, log_path)
    with open(log_path, "a") as log:
        try:
            if not fw.requirements.exists():
                raise RuntimeError(f"no requirements file {fw.requirements}")
            if not is_current(project, fw):
                if not create:
                    raise RuntimeError(f"environment {project.venvs / fw.environment} is missing or out of date")
                started = time.perf_counter()
                lock = lock_path(fw.requirements)
                if not lock_is_current(fw.requirements):
                    progress(f"{fw.name}: resolving {fw.requirements.name} into {lock.name} (commit it)")
                    write_lock(fw.requirements, log, fw.install_first)
                progress(f"{fw.name}: installing {lock.name} into {project.venvs / fw.environment} ...")
                status.packages = _install(project, fw, log)
                status.created, status.seconds = True, time.perf_counter() - started
            spec = _kernel_spec(project, fw)
            if kernel and (status.created or not spec.exists() or not _spec_is_current(spec, project, fw)):
                _register_kernel(project, fw, log)
            status.fingerprint = fingerprint(project, fw)
        except (RuntimeError, OSError, subprocess.CalledProcessError, json.JSONDecodeError) as exc:
            status.reason = str(exc)
            if create and not is_current(project, fw):
                # A half-made venv would look usable next time: remove it, keep the log. (Only when
                # asked to create: a check of an existing, outdated venv must not destroy it.)
                shutil.rmtree(project.venvs / fw.environment, ignore_errors=True)
            log.write(f"NOT INSTALLED: {status.reason}\n")
            return status
    status.ok = True
    status.python = venv_python(project, fw)
    return status


def _ensure_existing(project: Project, fw: Framework, status: EnvStatus, log_path: Path) -> EnvStatus:
    """An existing interpreter (ROSETTA_PYTHON_<ENVIRONMENT>): nothing is installed into it; the build
    checks that it runs and has a Jupyter kernel, registers that kernel and fingerprints its packages."""
    python, setting = existing_python(fw), existing_python_variable(fw)
    status.existing_python = str(python)
    with open(log_path, "a") as log:
        try:
            if not python.exists():
                raise RuntimeError(f"{setting}={python}: no such interpreter")
            if not fw.kernel_argv:
                probe = subprocess.run([str(python), "-c", "import ipykernel"], capture_output=True, text=True)
                if probe.returncode != 0:
                    raise RuntimeError(f"{setting}={python}: it has no ipykernel (install ipykernel into it, "
                                       "or see benchmarks/gpu/README.md for an overlay environment)")
            spec = _kernel_spec(project, fw)
            if not spec.exists() or not _spec_is_current(spec, project, fw):
                _register_kernel(project, fw, log)
            status.fingerprint = fingerprint(project, fw)
        except (RuntimeError, OSError, subprocess.CalledProcessError, json.JSONDecodeError) as exc:
            status.reason = str(exc)
            log.write(f"NOT USABLE: {status.reason}\n")
            return status
    status.ok, status.python = True, python
    return status


if __name__ == "__main__":
    # The build's own environment (make): python -m rosetta.build.environments VENV_PYTHON LOCK
    installed = install_lock(sys.argv[1], Path(sys.argv[2]), sys.stderr)
    print(f"installed {installed} packages from {sys.argv[2]}")
