"""The gate's lexical check: comments, quoting and bounds, read the way the *server* reads them.

sqlglot parses a text one way; PostgreSQL, MySQL/MariaDB and Spanner each have their own rules for
comments and strings. Wherever the two could disagree about where a comment, a string or a
statement ends, a hostile text can show the parser one query and the server another (the issue-24
probes: ``/*! INTO OUTFILE ... */`` runs on MySQL and is a comment to the parser; PostgreSQL nests
``/* /* */ */`` and MySQL does not). So the text is refused, whatever the parser thinks, when it has:

- a NUL byte; a MySQL executable comment (``/*!``, MariaDB ``/*M!``) or an optimizer hint
  (``/*+``) anywhere, even inside a string (strict: when in doubt refuse);
- a block comment opened inside another, a stray ``*/``, or an unterminated comment, string or
  quoted identifier;
- on MySQL a ``#`` comment or ``--`` not followed by a space (MySQL reads ``--x`` as minus minus x);
- on PostgreSQL dollar quoting (``$$...$$``, ``$tag$...$tag$``) or ``U&`` escapes; on PostgreSQL and
  MySQL a backslash before a quote inside a string (read differently under
  ``standard_conforming_strings``/``NO_BACKSLASH_ESCAPES``);
- text after the first statement's ``;``;
- more than :data:`MAX_BYTES` of text, :data:`MAX_TOKENS` tokens or :data:`MAX_DEPTH` nested
  parentheses (bounds that keep a hostile text from costing seconds of parsing).

The scan also lists the names written directly before ``(`` (what the server will call), so the
function check sees names exactly as written, whatever the parser maps them to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ctxtool.gate.findings import COMMENTS, MULTIPLE, TOO_BIG, GateFinding

MAX_BYTES = 100_000
MAX_TOKENS = 8_000
MAX_DEPTH = 32

_FIX_COMMENTS = "remove the comment or hint, or write the text without it"
_RAW = (
    ("\x00", "a NUL byte", "remove the NUL byte"),
    ("/*!", "a MySQL executable comment /*! ... */ (the server runs what the parser skips)", _FIX_COMMENTS),
    ("/*M!", "a MariaDB executable comment /*M! ... */", _FIX_COMMENTS),
    ("/*+", "an optimizer hint /*+ ... */ (hints can change session settings)", _FIX_COMMENTS),
)
# the next character that changes the lexical state
_SPECIAL = {
    "postgres": re.compile(r"""['"`;()$]|--|/\*|\*/"""),
    "mysql": re.compile(r"""['"`;()#]|--|/\*|\*/"""),
    "spanner": re.compile(r"""['"`;()#]|--|/\*|\*/"""),
}
_TOKEN = re.compile(r"\w+|[^\w\s]")
_CALL = re.compile(r"([A-Za-z_][\w$]*)\s*\Z")  # a name just before "("
_WORD_BEFORE = re.compile(r"(\w+)\Z")


@dataclass
class Lexed:
    """What the lexical scan found: findings, the names called (as written: unquoted ones lowered),
    the deepest parenthesis nesting and the number of tokens."""

    findings: list[GateFinding] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    depth: int = 0
    tokens: int = 0


def _finding(message: str, fix: str = _FIX_COMMENTS) -> GateFinding:
    return GateFinding(COMMENTS, message, fix)


def scan(sql: str, dialect: str) -> Lexed:
    """Scan ``sql`` as ``dialect``'s server would (see the module docstring for what is refused)."""
    out = Lexed()
    size = len(sql.encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        out.findings.append(
            GateFinding(
                TOO_BIG,
                f"the SQL is {size:,} bytes, more than the gate reads ({MAX_BYTES:,})",
                "split the query or make it shorter",
            )
        )
        return out
    for needle, what, fix in _RAW:
        if needle in sql:
            out.findings.append(_finding(f"the SQL holds {what}", fix))
    if out.findings:
        return out
    _Scanner(sql, dialect, out).run()
    if not out.findings and out.tokens > MAX_TOKENS:
        out.findings.append(
            GateFinding(
                TOO_BIG,
                f"the SQL has {out.tokens:,} tokens, more than the gate reads ({MAX_TOKENS:,})",
                "split the query or make it shorter",
            )
        )
    return out


class _Scanner:
    def __init__(self, sql: str, dialect: str, out: Lexed) -> None:
        self.sql = sql
        self.dialect = dialect if dialect in _SPECIAL else "postgres"
        self.out = out
        self.special = _SPECIAL[self.dialect]
        self.depth = 0
        self.ended_at: int | None = None  # position of the first statement's ";"

    def fail(self, message: str, fix: str = _FIX_COMMENTS) -> None:
        self.out.findings.append(_finding(message, fix))

    def code(self, start: int, end: int) -> None:
        """Plain SQL text between ``start`` and ``end``: count its tokens."""
        if start >= end:
            return
        segment = self.sql[start:end]
        if self.ended_at is not None and segment.strip():
            self.out.findings.append(
                GateFinding(
                    MULTIPLE,
                    "text follows the first statement's ';' (more than one statement)",
                    "keep exactly one statement",
                )
            )
        self.out.tokens += len(_TOKEN.findall(segment))

    def run(self) -> None:
        sql, n = self.sql, len(self.sql)
        i = 0
        while i < n and not self.out.findings:
            m = self.special.search(sql, i)
            if m is None:
                self.code(i, n)
                break
            self.code(i, m.start())
            tok, j = m.group(), m.start()
            if tok == "(":
                self.open_paren(j)
                i = j + 1
            elif tok == ")":
                self.depth -= 1
                i = j + 1
            elif tok == ";":
                if self.ended_at is None:
                    self.ended_at = j
                i = j + 1
            elif tok == "--":
                i = self.line_comment(j, dash=True)
            elif tok == "#":
                i = self.line_comment(j, dash=False)
            elif tok == "/*":
                i = self.block_comment(j)
            elif tok == "*/":
                self.fail("a '*/' closes no comment (nested or unbalanced comments)")
                return
            elif tok == "$":
                i = self.dollar(j)
            elif tok == "`":
                i = self.quoted(j, "`", identifier=True)
            elif tok == '"':
                i = self.quoted(j, '"', identifier=self.dialect == "postgres")
            else:  # "'"
                i = self.quoted(j, "'", identifier=False)
        self.out.depth = max(self.out.depth, 0)

    def open_paren(self, j: int) -> None:
        self.depth += 1
        self.out.tokens += 1
        if self.depth > self.out.depth:
            self.out.depth = self.depth
            if self.depth > MAX_DEPTH:
                self.out.findings.append(
                    GateFinding(
                        TOO_BIG,
                        f"parentheses nest more than {MAX_DEPTH} deep",
                        "flatten the query (CTEs instead of nested subqueries)",
                    )
                )
                return
        m = _CALL.search(self.sql[max(0, j - 128) : j])
        if m is not None:
            self.out.calls.append(m.group(1).lower())

    def line_comment(self, j: int, *, dash: bool) -> int:
        sql = self.sql
        if self.dialect == "mysql":
            if not dash:
                self.fail("a '#' comment (MySQL reads it, the parser may not)")
                return len(sql)
            after = sql[j + 2 : j + 3]
            if after and not after.isspace():
                self.fail("'--' without a following space (MySQL reads it as minus minus, not a comment)")
                return len(sql)
        end = sql.find("\n", j)
        return len(sql) if end < 0 else end + 1

    def block_comment(self, j: int) -> int:
        sql = self.sql
        end = sql.find("*/", j + 2)
        if end < 0:
            self.fail("an unterminated /* comment")
            return len(sql)
        if "/*" in sql[j + 2 : end]:
            self.fail("a /* comment opened inside another (PostgreSQL nests block comments, MySQL does not)")
            return len(sql)
        return end + 2

    def dollar(self, j: int) -> int:
        sql = self.sql
        if j > 0 and (sql[j - 1].isalnum() or sql[j - 1] == "_"):
            return j + 1  # part of an identifier (a$b)
        m = re.compile(r"\$([A-Za-z_]\w*)?\$").match(sql, j)
        if m is not None:
            self.fail(
                f"dollar quoting ({m.group()}) in the SQL",
                "write the string in single quotes; dollar-quoted text is refused",
            )
            return len(sql)
        return j + 1

    def quoted(self, j: int, quote: str, *, identifier: bool) -> int:
        """A string or quoted identifier starting at ``j``; returns the position after it."""
        sql, n = self.sql, len(self.sql)
        prefix = _WORD_BEFORE.search(sql[max(0, j - 8) : j])
        word = prefix.group(1).lower() if prefix else ""
        if self.dialect == "postgres" and quote in "'\"" and sql[max(0, j - 2) : j].lower() == "u&":
            self.fail("a U& escaped string or identifier", "write the text without U& escapes")
            return n
        if self.dialect == "spanner" and sql.startswith(quote * 3, j):
            end = sql.find(quote * 3, j + 3)
            while end >= 0 and "r" not in word and _escaped(sql, end, j + 3):
                end = sql.find(quote * 3, end + 1)
            if end < 0:
                self.fail("an unterminated triple-quoted string")
                return n
            self.out.tokens += 1
            return end + 3
        backslash = (
            not identifier
            and (
                self.dialect == "mysql"
                or (self.dialect == "postgres" and word == "e")
                or (self.dialect == "spanner" and "r" not in word)
            )
        ) or (self.dialect == "spanner" and quote == "`")
        i = j + 1
        while True:
            k = sql.find(quote, i)
            if k < 0:
                what = "quoted identifier" if identifier else "string"
                self.fail(f"an unterminated {what} starting {sql[j : j + 20]!r}")
                return n
            if backslash and _escaped(sql, k, j + 1):
                if self.dialect != "spanner":
                    self.fail(
                        "a backslash before a quote inside a string (read differently depending on "
                        "the server's escape settings)",
                        "double the quote ('') instead of escaping it with a backslash",
                    )
                    return n
                i = k + 1
                continue
            if not backslash and not identifier and self.dialect != "spanner" and sql[k - 1] == "\\":
                self.fail(
                    "a backslash before a quote inside a string (read differently depending on "
                    "the server's escape settings)",
                    "double the quote ('') instead of escaping it with a backslash",
                )
                return n
            if sql.startswith(quote * 2, k) and self.dialect != "spanner":
                i = k + 2  # a doubled quote
                continue
            self.out.tokens += 1
            end = k + 1
            if identifier or quote == "`":
                nxt = sql[end : end + 200].lstrip()
                if nxt.startswith("("):
                    self.out.calls.append(sql[j:end])  # a quoted name called as a function: kept quoted
            return end


def _escaped(sql: str, k: int, start: int) -> bool:
    """Whether the character at ``k`` is escaped by an odd run of backslashes (not before ``start``)."""
    count = 0
    p = k - 1
    while p >= start and sql[p] == "\\":
        count += 1
        p -= 1
    return count % 2 == 1
