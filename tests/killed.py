"""`python -m tests.killed STEP ARGS…`: run `differ ARGS…` and SIGKILL the process at one step of a check, for
the crash tests: nothing after the step runs, no `finally`, no flush, what was written stays."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from differ import audited, check, notify
from differ.cli import main
from differ.notify.outbox import Message, Outbox


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def before(module: Any, name: str) -> None:
    """Die where `module.name` is called."""
    setattr(module, name, lambda *args, **kwargs: die())


def after(module: Any, name: str) -> None:
    """Die as soon as `module.name` returns."""
    original = getattr(module, name)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        original(*args, **kwargs)
        die()

    setattr(module, name, wrapped)


def delivered() -> None:
    """Die once a receiver has answered 2xx, before the message is filed as sent."""
    move = Outbox.move

    def wrapped(self: Outbox, msg: Message, state: str) -> Message:
        if state == "sent":
            die()
        return move(self, msg, state)

    Outbox.move = wrapped  # type: ignore[method-assign]


STEPS: dict[str, Callable[[], None]] = {
    "stored": lambda: before(check, "_after"),  # every source checked and its state saved, nothing queued
    "audited": lambda: before(notify, "dispatch"),  # the mirrors audited, their drift not queued
    "queued": lambda: after(notify, "dispatch"),  # alerts in the outbox, nothing they settle settled
    "remembered": lambda: after(audited, "remember_audits"),  # the audit recorded, owed alerts not settled
    "settled": lambda: before(notify, "deliver"),  # everything written, nothing sent
    "delivered": delivered,  # a receiver has the first message, the outbox does not know
}

if __name__ == "__main__":
    STEPS[sys.argv[1]]()
    raise SystemExit(main(sys.argv[2:]))
