"""Starts one rank of a job that an MPI launcher starts, and ends the whole job when that rank fails.

    python -m rosetta.rank_start CORES LOG -- PROGRAM [ARGUMENT...]

`mpiexec` (ranks.py: a row whose [data_parallel] table has `start`) runs this once per rank. It pins itself
to CORES ("0,1") and runs PROGRAM as its child, which inherits those cores, the environment and the
descriptors through which MPI's launcher talks to its ranks; PROGRAM's output goes to LOG ("-": the
launcher's own), its exit status to LOG.status. (`mpiexec -bind-to core` would pin the ranks too, but to
the machine's first cores, not to the ones the build gave this job.)

MPICH's simple launcher (mpiexec.gforker) waits for every rank, even when one has failed and the others wait
for it in a collective, until they are killed. So when PROGRAM ends with an error, this ends the launcher,
which ends every rank (as Hydra's mpiexec does itself).
"""
from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
from pathlib import Path

PR_SET_PDEATHSIG = 1                                   # <sys/prctl.h>


def _die_with_parent(parent: int):
    """The program's last step before it starts: Linux kills it when this process ends, however it ends (the
    launcher may kill this one outright; an orphaned rank would spin in MPI's polling loop for ever)."""
    def arrange() -> None:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:                     # this process ended before the request was made
            os._exit(1)
    return arrange


def main(argv: list[str]) -> int:
    cores, log, separator, *program = argv
    if separator != "--" or not program:
        sys.exit("usage: python -m rosetta.rank_start CORES LOG -- PROGRAM [ARGUMENT...]")
    os.sched_setaffinity(0, {int(core) for core in cores.split(",")})
    out = open(log, "w") if log != "-" else None
    # close_fds=False: the launcher's descriptors (MPICH's PMI_FD) must reach the program.
    child = subprocess.Popen(program, stdout=out, stderr=subprocess.STDOUT if out else None, close_fds=False,
                             preexec_fn=_die_with_parent(os.getpid()))
    # The launcher ends a job by signalling its ranks, here: end the program, or it would outlive the job. Killed,
    # not passed the signal: a Python rank waiting in an MPI call would only see it once the call returned.
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_: child.kill())
    code = child.wait()
    if out is not None:
        Path(f"{log}.status").write_text(str(code))
    if code != 0:
        os.kill(os.getppid(), signal.SIGTERM)          # the launcher: it ends the other ranks
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
