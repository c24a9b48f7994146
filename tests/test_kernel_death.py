"""How a kernel that died ended, read from its process (execute.kernel_death): real processes, ended by a
signal or an exit status. A build whose kernel dies for real: test_faults."""
from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from rosetta.build.execute import kernel_death


def ended(code: str) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-c", code])
    process.wait(timeout=30)
    return process


def test_sigkill_is_named_as_out_of_memory_most_likely():
    died = kernel_death(ended("import os, signal; os.kill(os.getpid(), signal.SIGKILL)"))
    assert died == {"ename": "KernelDied", "evalue": "the kernel was killed by SIGKILL in the middle of a step "
                                                     "(out of memory, most likely: that is what Linux's OOM "
                                                     "killer sends)"}


@pytest.mark.parametrize("number", [signal.SIGSEGV, signal.SIGABRT])
def test_another_signal_is_named_as_it_is(number):
    died = kernel_death(ended(f"import os; os.kill(os.getpid(), {int(number)})"))
    assert died["evalue"] == f"the kernel was killed by {signal.Signals(number).name} in the middle of a step"


def test_an_exit_status_is_given():
    assert kernel_death(ended("import os; os._exit(3)"))["evalue"] == \
        "the kernel exited with status 3 in the middle of a step"


def test_no_process_is_no_guess():
    assert kernel_death(None)["evalue"] == "the kernel died in the middle of a step (how, its process does not say)"


def test_an_interrupted_run_s_kernel_is_killed_even_when_nbclient_already_dropped_its_manager():
    """SIGTERM during a cell: nbclient's own clean-up and the build's race; the loser finds no kernel manager
    (CI saw AttributeError on None, and the build ended 1 instead of 130). The clean-up then never raises, and
    the kernel's process is killed outright if it still runs."""
    import nbformat
    from nbclient import NotebookClient

    from rosetta.build.execute import shut_down
    client = NotebookClient(nbformat.v4.new_notebook())
    assert client.km is None                         # as after the other clean-up: the manager dropped
    kernel = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    shut_down(client, kernel)
    assert kernel.poll() == -signal.SIGKILL
    shut_down(client, kernel)                        # a process that has ended already: nothing to do
    shut_down(client, None)                          # a kernel whose process was never known
