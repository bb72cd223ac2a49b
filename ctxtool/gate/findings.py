"""What the read-only gate says about one SQL text: typed findings, the result, and the error raised
when a statement is refused.

Each finding carries a rule code of the validation catalogue (:mod:`ctxtool.validate.rules`), so
``ctxtool validate`` and the gate that guards every statement report the same thing in the same
words: what is wrong (naming the function or clause) and what to do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ctxtool.errors import EXIT_REFUSED, DatabaseError

# Rule codes the gate reports (registered with docs in ctxtool.validate.rules).
SYNTAX = "CTX201"  # does not parse in the dialect
NOT_READ_ONLY = "CTX202"  # not a query, or writes / runs a command / changes session state
MULTIPLE = "CTX203"  # more than one statement
INTO = "CTX204"  # SELECT ... INTO (a table, a variable, OUTFILE, DUMPFILE)
LOCKING = "CTX205"  # FOR UPDATE / FOR SHARE / LOCK IN SHARE MODE
FUNCTION = "CTX207"  # a function not on the engine's allow-list
COMMENTS = "CTX208"  # comments/quoting the parser and the server could read differently
TOO_BIG = "CTX209"  # beyond the size, token or nesting bounds

# the environment variable listing user functions declared read-only (named in findings)
ENV_FUNCTIONS = "CTXTOOL_GATE_FUNCTIONS"


@dataclass(frozen=True)
class GateFinding:
    """One reason a text is not a single read-only query: ``code`` (a CTX rule), ``message``
    (what, naming the offending function or clause) and ``fix`` (what to do)."""

    code: str
    message: str
    fix: str

    def __str__(self) -> str:
        return f"{self.message} [{self.code}]; {self.fix}"


@dataclass(frozen=True)
class GateResult:
    """The gate's verdict on one text in one dialect: ``ok`` when there is no finding."""

    sql: str
    dialect: str
    findings: tuple[GateFinding, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return not self.findings

    def summary(self) -> str:
        """One line: the first finding (and how many more there are)."""
        if self.ok:
            return "one read-only query"
        more = len(self.findings) - 1
        return str(self.findings[0]) + (f" (and {more} more finding(s))" if more else "")


class GateRefused(DatabaseError):
    """ctxtool refused to send a statement to the database: it is not exactly one read-only query
    with allowed functions (exit code 4). It is a :class:`~ctxtool.errors.DatabaseError`, so every
    path that turns a refused statement into an answer's error or a finding does so here too."""

    exit_code = EXIT_REFUSED

    def __init__(self, result: GateResult) -> None:
        super().__init__(f"refused by the read-only gate: {result.summary()}")
        self.result = result

    @property
    def findings(self) -> tuple[GateFinding, ...]:
        return self.result.findings
