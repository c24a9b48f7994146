#!/usr/bin/env python3
"""Start every row's kernel again and again, as the build starts it, and say which ones die and why.

    .envs/docs/bin/python benchmarks/kernel_starts.py                        # 10 starts of each row's kernel
    .envs/docs/bin/python benchmarks/kernel_starts.py --under-smoke          # ... while a smoke build runs
    .envs/docs/bin/python benchmarks/kernel_starts.py --rows convnetjs --starts 40 --churn --ports jupyter

Each start is the build's (rosetta.build.execute): the row's kernelspec, its variables and working files,
its transport (Deno's kernel on TCP, the ipykernel rows on IPC), and the kernel's stderr kept; a start is ok
when the kernel answers kernel_info. `--under-smoke` runs a smoke build (its results in a folder of its own,
stopped at the end) for the load `make test` puts on the machine. `--churn` adds a process that takes
ports with bind(0) and holds each for a second, as gloo's pairs or a parameter server do; `--ports jupyter`
lets jupyter_client choose the TCP ports as it did before stop 48 (bind(0), then closed until the kernel
binds them), `--ports build` (the default) takes them from rosetta.build.ports. The report, with the
machine, is printed and saved to benchmarks/kernel_starts/<machine>-<date>.json.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from jupyter_client.manager import KernelManager  # noqa: E402

from rosetta.build import environments, results, variables  # noqa: E402
from rosetta.build.benchmark import write_working_files  # noqa: E402
from rosetta.build.execute import kernel_config, stderr_tail  # noqa: E402
from rosetta.project import Project  # noqa: E402

CHURN = """import collections, socket, sys, time
held, end = collections.deque(), time.time() + float(sys.argv[1])
while time.time() < end:
    s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); held.append((time.time(), s))
    while held and held[0][0] < time.time() - 1.0:
        held.popleft()[1].close()
    if len(held) > 3000:
        time.sleep(0.001)
"""


def start_once(project: Project, fw, folder: Path, ports: str) -> dict:
    """One start of the row's kernel: ok when it answers kernel_info within 60 s; else how it ended."""
    sockets = tempfile.mkdtemp(prefix="rosetta-kernel-", dir=folder)
    where = kernel_config(fw.kernel_transport, sockets)
    if fw.kernel_transport == "tcp" and ports == "jupyter":
        where = {"transport": "tcp"}
    manager = KernelManager(kernel_name=fw.kernel_name, **where)
    stderr_path = Path(sockets) / "stderr.log"
    begun = time.perf_counter()
    try:
        with open(stderr_path, "w") as stderr:
            manager.start_kernel(stderr=stderr, cwd=str(folder),
                                 env={**os.environ, **environments.child_variables(project, fw)})
            client = manager.client()
            client.start_channels()
            try:
                client.wait_for_ready(timeout=60)
            finally:
                client.stop_channels()
        return {"ok": True, "seconds": round(time.perf_counter() - begun, 3)}
    except RuntimeError as exc:
        process = getattr(manager.provisioner, "process", None)
        return {"ok": False, "seconds": round(time.perf_counter() - begun, 3), "error": str(exc),
                "exit_status": process.poll() if process is not None else None,
                "stderr": stderr_tail(stderr_path)}
    finally:
        try:
            manager.shutdown_kernel(now=True)
        except Exception:                     # (a kernel that died has nothing to shut down)
            pass


def smoke_build(folder: Path) -> subprocess.Popen:
    """A smoke build (what make test builds), its results and pages in `folder`; returns once it executes."""
    log = open(folder / "smoke.log", "w")
    build = subprocess.Popen([sys.executable, str(ROOT / "build_docs.py"), "--profile", "smoke", "--force",
                              "--results", str(folder / "results"), "--output", str(folder / "html")],
                             cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ,
                                                                                  "ROSETTA_WEIGHTS": "random"})
    deadline = time.monotonic() + 1800
    while "  run 1/" not in (folder / "smoke.log").read_text() and time.monotonic() < deadline:
        if build.poll() is not None:
            raise SystemExit(f"the smoke build ended before it executed anything:\n"
                             f"{(folder / 'smoke.log').read_text()[-3000:]}")
        time.sleep(1)
    return build


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--starts", type=int, default=10, help="starts of each row's kernel, one after another")
    parser.add_argument("--rows", default="", help="comma-separated rows (default: every row with an environment)")
    parser.add_argument("--under-smoke", action="store_true", help="while a smoke build runs")
    parser.add_argument("--churn", action="store_true", help="while a process takes ports with bind(0)")
    parser.add_argument("--ports", choices=["build", "jupyter"], default="build",
                        help="TCP kernels' ports: rosetta.build.ports (build) or jupyter_client's own")
    args = parser.parse_args()
    project = Project(root=ROOT)
    machine, machine_info = results.this_machine(project, variables.read().machine)
    wanted = [name for name in args.rows.split(",") if name]
    rows = [fw for fw in project.frameworks() if (not wanted or fw.name in wanted)
            and environments.venv_python(project, fw).exists()]
    if not rows:
        print("error: no row here has an environment (make envs)", file=sys.stderr)
        return 2
    report = {"machine": machine_info, "date": results.now(), "starts": args.starts,
              "under_smoke_build": args.under_smoke, "churn": args.churn, "ports": args.ports, "rows": {}}
    with tempfile.TemporaryDirectory(prefix="rosetta-kernel-starts-") as scratch:
        build = smoke_build(Path(scratch)) if args.under_smoke else None
        churn = subprocess.Popen([sys.executable, "-c", CHURN, "36000"]) if args.churn else None
        try:
            for fw in rows:
                folder = Path(scratch) / fw.name
                folder.mkdir()
                write_working_files(project, fw, folder)
                starts = [start_once(project, fw, folder, args.ports) for _ in range(args.starts)]
                ok = [start["seconds"] for start in starts if start["ok"]]
                report["rows"][fw.name] = {"kernel": fw.kernel_name, "transport": fw.kernel_transport,
                                           "ok": len(ok), "median_seconds": statistics.median(ok) if ok else None,
                                           "failed": [start for start in starts if not start["ok"]]}
                print(f"{fw.name:<14} {fw.kernel_transport:<4} {len(ok)}/{args.starts} ok"
                      + (f", median {statistics.median(ok):.2f} s" if ok else ""), flush=True)
                for start in report["rows"][fw.name]["failed"]:
                    print(f"{'':<14} died: {start['error']} (exit status {start['exit_status']}): "
                          f"{start['stderr'][-300:]}", flush=True)
            if build is not None:
                report["smoke_build_still_running"] = build.poll() is None
        finally:
            for process in (build, churn):
                if process is not None and process.poll() is None:
                    process.send_signal(signal.SIGINT if process is build else signal.SIGKILL)
                    process.wait(120)
    how = ("-under-smoke" if args.under_smoke else "") + (f"-churn-{args.ports}-ports" if args.churn else "")
    out = ROOT / "benchmarks" / "kernel_starts" / f"{machine}-{report['date'][:16].replace(':', '')}{how}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n")
    failed = sum(len(row["failed"]) for row in report["rows"].values())
    print(f"{sum(row['ok'] for row in report['rows'].values())} of {args.starts * len(rows)} starts ok, "
          f"{failed} died; saved {out.relative_to(ROOT)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
