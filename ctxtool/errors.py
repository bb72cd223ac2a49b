"""One exception type for every error a user can act on, and the exit codes the CLI documents.

Library code raises :class:`CtxtoolError` (or a subclass) with a one-line message that says what
went wrong and what to do; the CLI prints it without a traceback and exits with ``exit_code``.
"""

from __future__ import annotations

# Exit codes, documented in README.md ("Exit codes") and `ctxtool --help`.
EXIT_OK = 0
EXIT_FINDINGS = 1  # findings, failed checks, `--check` would change a file
EXIT_USAGE = 2  # bad usage, unreadable or unparsable input
EXIT_DATABASE = 3  # cannot connect, authentication failed, server error
EXIT_REFUSED = 4  # the read-only gate refused a statement (not one read-only query; see ctxtool.gate)
EXIT_STORE = 5  # a store ctxtool keeps (published sets) is damaged or is not one of ctxtool's
EXIT_INTERRUPTED = 130  # Ctrl-C


class CtxtoolError(Exception):
    """An error with a one-line, actionable message."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class InputError(CtxtoolError):
    """Unreadable or malformed input (a file, a DSN, an option value)."""

    exit_code = EXIT_USAGE


class DatabaseError(CtxtoolError):
    """The database could not be reached or refused a statement."""

    exit_code = EXIT_DATABASE


class StoreDamaged(CtxtoolError):
    """A store ctxtool keeps (a SQLite file of published sets) is damaged (truncated, overwritten,
    another program's tables): nothing was changed in it; the user restores it or moves it away."""

    exit_code = EXIT_STORE
