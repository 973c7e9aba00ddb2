"""Errors differ reports to users, each with a message written for them.

    DifferError
    ├── ConfigError      the configuration is wrong (file, key path, what was found, what is allowed)
    ├── FetchError       a page could not be fetched (HTTP status, timeout, size cap, robots.txt, …)
    │   └── BlockedError a request was refused before it was sent (robots.txt, private address)
    ├── NormalizeError   a fetched body could not be turned into Markdown
    │   └── NoContentError  no content: a selector that matches nothing, a page with no text as served
    ├── StoreError       the snapshot store is unreadable, locked or damaged
    │   ├── StoreDamage    a file of one source's history is damaged (the other sources read)
    │   └── StoreConflict  another process stored a version of the same source first
    ├── NotifyError      a notification could not be delivered
    └── UsageError       the command line asked for something that does not exist

Every message is one line that names the offending value and says what was expected.
"""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    """Process exit codes of the `differ` command."""

    OK = 0
    #: a check ran but at least one source failed, or `verify` found damage
    FAILURE = 1
    #: bad configuration or bad command-line usage
    USAGE = 2
    #: the store could not be opened or locked
    STORE = 3
    #: interrupted by the user
    INTERRUPTED = 130


class DifferError(Exception):
    """Base of every error differ reports to users."""

    exit_code: ExitCode = ExitCode.FAILURE


class ConfigError(DifferError):
    """The configuration file or a value in it is wrong."""

    exit_code = ExitCode.USAGE


class UsageError(DifferError):
    """The command line names something that does not exist."""

    exit_code = ExitCode.USAGE


class FetchError(DifferError):
    """A page could not be fetched."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        retryable: bool = False,
    ):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
        #: a network fault that may pass (timeouts, refused or reset connections, broken bodies)
        self.retryable = retryable
        #: seconds spent waiting for the host's turn before the request failed
        self.waited = 0.0


class BlockedError(FetchError):
    """A request was refused before it was sent (robots.txt, private address). `refused` is, for a private
    address, what was refused, which the caller follows with the setting that allows it where it can name it
    (`differ set DOC/SOURCE allow_private=true`, `--set allow_private=true`)."""

    def __init__(self, message: str, *, refused: str = ""):
        super().__init__(message)
        self.refused = refused

    def allow_with(self, how: str) -> str:
        """The refusal followed by `how` to allow it; the message as it is when not about a private address."""
        return f"{self.refused}; to reach it: {how}" if self.refused else str(self)


class StoppedError(FetchError):
    """A fetch cut short because differ is stopping (a source's program killed with it): no failure of the page,
    which is checked again next time."""


class NormalizeError(DifferError):
    """A fetched body could not be turned into Markdown. `read_with` names the settings that read it, where
    differ can tell (a feed where a page was expected: `kind = "feed"` and the first post's link as `entry`), so
    the failure can say the command that changes them."""

    def __init__(self, message: str, *, read_with: dict[str, str] | None = None):
        super().__init__(message)
        self.read_with = read_with or {}


class NoContentError(NormalizeError):
    """The page has no content where the source says to look: the check fails (nothing to compare), and a
    version is never stored empty."""


class StoreError(DifferError):
    """The snapshot store is unreadable, locked or damaged."""

    exit_code = ExitCode.STORE


class StoreDamage(StoreError):
    """A file of one source's history (a version record, its head, its Markdown, a raw body) is damaged: that
    source cannot be read until it is mended, but the store and the other sources can."""

    def __init__(self, message: str, key: str | None = None):
        super().__init__(message)
        #: the source whose file it is (None for a raw body, which any source may share)
        self.key = key


class StoreConflict(StoreError):
    """Another process stored a version of the same source first: nothing was stored, nothing is damaged."""

    exit_code = ExitCode.FAILURE


class NotifyError(DifferError):
    """A notification could not be delivered."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        retry_after: float | None = None,
        disable: bool = False,
    ):
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after
        self.disable = disable


def refused(exc: OSError) -> str | None:
    """A file the system refused, as users read it: the file (a rename's, the one it was to replace) and why;
    None for an error that names no file."""
    if not (exc.filename and exc.strerror):
        return None
    return f"{exc.filename2 or exc.filename}: {exc.strerror}"


def innermost(exc: BaseException) -> BaseException:
    """The exception at the bottom of a chain: HTTP libraries wrap the socket's or OpenSSL's own, whose words
    are the ones to show."""
    while exc.__context__ is not None and exc.__context__ is not exc:
        exc = exc.__context__
    return exc
