"""Environment stage: one virtual environment and one Jupyter kernel per framework.

A framework's venv is created from ``envs/<framework>.txt`` only when it is missing or its
requirements changed (a marker file holds the hash they were installed from). Each venv
gets a ``.pth`` line that makes this repository's ``rosetta`` package importable, and is
registered as the kernel ``rosetta-<framework>`` in the build's own environment. The
fingerprint (requirements hash + every installed distribution and its version) is part of
each result's cache key and provenance.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .project import REPO_ROOT, Framework, Project

MARKER = "rosetta-installed.json"
PIP_QUIET = ["--disable-pip-version-check", "--no-input", "-q"]

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

    @property
    def fingerprint_hash(self) -> str:
        return hashlib.sha256(json.dumps(self.fingerprint, sort_keys=True).encode()).hexdigest()


def requirements_hash(fw: Framework) -> str:
    digest = hashlib.sha256()
    for path in (fw.requirements, fw.definition):
        if path is None:
            continue
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()


def venv_python(project: Project, fw: Framework) -> Path:
    return project.venvs / fw.name / "bin" / "python"


def base_python() -> str:
    """The interpreter new venvs are made from: ROSETTA_PYTHON, else the one behind this venv."""
    return os.environ.get("ROSETTA_PYTHON") or getattr(sys, "_base_executable", sys.executable)


def _run(cmd: list[str], log) -> None:
    result = subprocess.run(cmd, capture_output=True, text=True)
    # pip repeats harmless warnings about this machine's extra package indexes: keep them out.
    noise = ("is ignored: it is neither a file nor a directory",)
    output = "\n".join(
        line for line in (result.stdout + result.stderr).splitlines() if not any(n in line for n in noise)
    )
    log.write(f"$ {' '.join(cmd)}\n{output}\n")
    if result.returncode != 0:
        tail = [line for line in output.splitlines() if line.strip()][-6:]
        raise RuntimeError(f"`{' '.join(Path(c).name if i == 0 else c for i, c in enumerate(cmd))}` failed: "
                           + " | ".join(tail))


def _install(project: Project, fw: Framework, log) -> None:
    venv = project.venvs / fw.name
    if venv.exists():
        shutil.rmtree(venv)
    _run([base_python(), "-m", "venv", str(venv)], log)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", *PIP_QUIET]
    if fw.install_first:
        _run([*pip, *fw.install_first], log)
    build_flags = ["--no-build-isolation"] if fw.no_build_isolation else []
    _run([*pip, *build_flags, "-r", str(fw.requirements)], log)
    site = Path(subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True).stdout.strip())
    # What `pip install -e` would do, without needing a build backend in every venv:
    (site / "rosetta-stone.pth").write_text(str(REPO_ROOT) + "\n")
    (venv / MARKER).write_text(json.dumps({"requirements_sha256": requirements_hash(fw)}))


def _python_of_kernel(spec: Path) -> str:
    return json.loads(spec.read_text())["argv"][0]


def _register_kernel(project: Project, fw: Framework, log) -> None:
    _run([str(venv_python(project, fw)), "-m", "ipykernel", "install", "--prefix", sys.prefix,
          "--name", fw.kernel_name, "--display-name", f"Rosetta: {fw.label}"], log)


def is_current(project: Project, fw: Framework) -> bool:
    marker = project.venvs / fw.name / MARKER
    if not (marker.exists() and venv_python(project, fw).exists()):
        return False
    return json.loads(marker.read_text()).get("requirements_sha256") == requirements_hash(fw)


def fingerprint(project: Project, fw: Framework) -> dict:
    out = subprocess.run([str(venv_python(project, fw)), "-c", _LIST_PACKAGES],
                         capture_output=True, text=True, check=True)
    listed = json.loads(out.stdout)
    return {"requirements_sha256": requirements_hash(fw), "python": listed["python"],
            "packages": dict(sorted(listed["packages"].items()))}


def ensure(project: Project, fw: Framework, create: bool = True) -> EnvStatus:
    """Make sure the framework's venv and kernel exist; never raises for an install failure."""
    project.venvs.mkdir(parents=True, exist_ok=True)
    log_path = project.venvs / f"{fw.name}.log"
    status = EnvStatus(fw.name, ok=False, kernel_name=fw.kernel_name)
    with open(log_path, "a") as log:
        try:
            if not fw.requirements.exists():
                raise RuntimeError(f"no requirements file {fw.requirements}")
            if not is_current(project, fw):
                if not create:
                    raise RuntimeError(f"environment {project.venvs / fw.name} is missing or out of date")
                _install(project, fw, log)
                status.created = True
            spec = Path(sys.prefix) / "share" / "jupyter" / "kernels" / fw.kernel_name / "kernel.json"
            if status.created or not spec.exists() or _python_of_kernel(spec) != str(venv_python(project, fw)):
                _register_kernel(project, fw, log)
            status.fingerprint = fingerprint(project, fw)
        except (RuntimeError, OSError, subprocess.CalledProcessError, json.JSONDecodeError) as exc:
            status.reason = str(exc)
            if status.created or not is_current(project, fw):
                # A half-made venv would look usable next time: remove it, keep the log.
                shutil.rmtree(project.venvs / fw.name, ignore_errors=True)
            log.write(f"NOT INSTALLED: {status.reason}\n")
            return status
    status.ok = True
    status.python = venv_python(project, fw)
    return status
