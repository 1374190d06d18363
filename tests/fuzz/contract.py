"""What every target asserts, and the watchdog that turns a hang into a failure."""

from __future__ import annotations

import faulthandler
import signal
import sys
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from steadlith_core.errors import visible

MAX_MESSAGE = 1200  # a message quotes a bounded piece of the input, never all of it


class Hang(AssertionError):
    """An entry point ran past the watchdog: bad input must be refused, not worked on forever."""


def one_line(error: BaseException) -> str:
    """The message of a refused input as the command and the window show it (through
    errors.visible, which escapes controls): one short line, never empty."""
    message = visible(str(error))
    assert message.strip(), f"{type(error).__name__} with an empty message"
    assert "\n" not in message and "\r" not in message, f"{type(error).__name__} message is not one line: {message!r}"
    assert len(message) <= MAX_MESSAGE, f"{type(error).__name__} message of {len(message)} characters: {message[:200]!r}"
    message.encode("utf-8")  # printable at all: no lone surrogate reaches the terminal
    return message


def expect(call: Callable[[], Any], errors: type[BaseException] | tuple[type[BaseException], ...]) -> Any:
    """call()'s result, or None when it raised one of `errors` with a one-line message.
    Any other exception propagates: Hypothesis reports and shrinks it."""
    try:
        return call()
    except errors as e:
        one_line(e)
        return None


@contextmanager
def watchdog(seconds: float) -> Iterator[None]:
    """Raise Hang in the main thread after `seconds` (a loop in Python), and as a last
    resort dump every thread's stack and exit after three times that (a loop in C, which
    no signal interrupts)."""
    faulthandler.dump_traceback_later(seconds * 3, exit=True, file=sys.__stderr__)
    armed = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    if armed:
        def ring(signum, frame):
            raise Hang(f"no answer within {seconds:g} s")

        previous = signal.signal(signal.SIGALRM, ring)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        faulthandler.cancel_dump_traceback_later()


def note(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
