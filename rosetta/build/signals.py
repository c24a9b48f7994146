"""Ctrl-C and SIGTERM end a build the same way, and the message says what it was doing then.

SIGTERM (a CI runner stopping a job, `kill`) raises KeyboardInterrupt as Ctrl-C does: kernels and workers are
shut down on the way out (execute, equivalence), and every finished result is kept (store).
"""
from __future__ import annotations

import signal


class Doing:
    """What the build is doing now, for the message of an interrupted build; the signal that stopped it."""
    now = "starting"
    signal = ""
    handlers: dict = {}


def doing(what: str) -> None:
    Doing.now = what


def interrupt_on_signals() -> None:
    def stop(signum, frame):
        Doing.signal = signal.Signals(signum).name
        raise KeyboardInterrupt(Doing.signal)
    Doing.signal, Doing.now = "", "starting"
    for number in (signal.SIGINT, signal.SIGTERM):
        Doing.handlers[number] = signal.signal(number, stop)


def restore_signals() -> None:
    for number, handler in Doing.handlers.items():
        signal.signal(number, handler)
