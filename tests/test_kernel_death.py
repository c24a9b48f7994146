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
    assert died == {"ename": "KernelDied", "evalue": "the kernel was killed by SIGKILL (out of memory, most "
                                                     "likely: that is what Linux's OOM killer sends)"}


@pytest.mark.parametrize("number", [signal.SIGSEGV, signal.SIGABRT])
def test_another_signal_is_named_as_it_is(number):
    died = kernel_death(ended(f"import os; os.kill(os.getpid(), {int(number)})"))
    assert died["evalue"] == f"the kernel was killed by {signal.Signals(number).name}"


def test_an_exit_status_is_given():
    assert kernel_death(ended("import os; os._exit(3)"))["evalue"] == \
        "the kernel exited with status 3 in the middle of a step"


def test_no_process_is_no_guess():
    assert kernel_death(None)["evalue"] == "the kernel died (how, its process does not say)"
