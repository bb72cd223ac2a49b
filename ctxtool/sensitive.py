"""Secret columns: passwords, tokens, hashes, salts, keys and national ids, by name and by content.

One rule, used wherever ctxtool would put a column's values in front of someone: drafted templates
and facets (:mod:`ctxtool.draft.model`), value searches (:mod:`ctxtool.values.draft`) and the
answers ``ask`` serves (:mod:`ctxtool.runtime.pipeline`). A column is secret when a word of its name
says so (``password``, ``pwd``, ``passwd``, ``token``, ``secret``, ``salt``, ``hash``, ``ssn``,
``api key``, ``private key``, ...; ``PasswordHash`` and ``api_token`` split into words) or when
its stored values have the shape of a password hash or a digest (bcrypt/scrypt/argon2/pbkdf2
strings, 32-128 hex digits: md5, sha1, sha256, sha512). A comment that says so counts too.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import Any

from ctxtool.connectors.profile import effective_type, type_category

# one word of a column's name that makes it secret
SECRET_WORDS = frozenset(
    {
        "password", "passwd", "pwd", "passphrase", "passcode", "secret", "secrets", "token", "tokens",
        "salt", "hash", "hashed", "digest", "ssn", "apikey", "otp", "totp", "cvv", "cvc", "pin", "pinhash",
        "credential", "credentials", "nonce",
    }
)  # fmt: skip
# two words in a row that make it secret (``api_key``, ``private key``, ``social security``)
SECRET_PAIRS = frozenset(
    {
        ("api", "key"), ("private", "key"), ("secret", "key"), ("access", "key"), ("auth", "key"),
        ("social", "security"), ("card", "number"), ("security", "code"), ("recovery", "code"),
    }
)  # fmt: skip
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_SPLIT = re.compile(r"[^A-Za-z0-9]+")
# the shapes of stored password hashes and digests
_HASHED = re.compile(
    r"^(?:\$(?:2[abxy]?|argon2(?:id|i|d)?|scrypt|pbkdf2[\w-]*|[156]|sha(?:256|512)?)\$\S{8,}"
    r"|(?:pbkdf2[\w-]*|sha1|sha256|md5|bcrypt|argon2)[$:]\S{8,}"
    r"|\{(?:S?SHA|SSHA\d*|MD5|CRYPT|BCRYPT)\}\S{8,}"
    r"|[0-9a-fA-F]{32}|[0-9a-fA-F]{40}|[0-9a-fA-F]{56}|[0-9a-fA-F]{64}|[0-9a-fA-F]{96}|[0-9a-fA-F]{128})$"
)


def words(name: str) -> list[str]:
    """The lower-case words of an identifier (``PasswordHash`` -> password, hash)."""
    return [w for w in _SPLIT.split(_CAMEL.sub(r"\1 \2", name).lower()) if w]


def secret_by_name(name: str, comment: str | None = None) -> str | None:
    """Why a column called ``name`` (with ``comment``) holds secrets, or None."""
    for text, where in ((name, "its name"), (comment or "", "its comment")):
        ws = words(text)
        hit = next((w for w in ws if w in SECRET_WORDS), None)
        if hit is None:
            hit = next((" ".join(p) for p in zip(ws, ws[1:], strict=False) if p in SECRET_PAIRS), None)
        if hit is not None and (where == "its name" or hit not in ("pin", "nonce", "digest", "token")):
            return f"{where} says {hit!r}: secrets are never drafted or served"
    return None


def secret_by_values(values: Iterable[Any]) -> str | None:
    """Why these stored values look like password hashes or digests (most of them do), or None."""
    seen = [str(v) for v in values if v is not None and str(v).strip()]
    if not seen:
        return None
    hashed = sum(1 for v in seen if _HASHED.match(v.strip()))
    if hashed * 2 > len(seen):
        return "its values look like password hashes or digests: secrets are never drafted or served"
    return None


# words that name secrets only in text or bytes (a number called ``salt`` is grams of it)
_TEXT_ONLY = frozenset({"salt", "hash", "hashed", "digest", "nonce", "token", "tokens", "secret", "secrets"})


def secret_column(column: dict[str, Any]) -> str | None:
    """Why a snapshot column (name, comment, type, profile) holds secrets, or None."""
    why = secret_by_name(str(column.get("name") or ""), column.get("comment"))
    if why:
        said = why.split("'")[1]
        if said not in _TEXT_ONLY or type_category(effective_type(column)) in ("text", "other"):
            return why
    profile = column.get("profile") or {}
    common = [m.get("value") for m in profile.get("most_common") or () if isinstance(m, dict)]
    return secret_by_values([*common, profile.get("min"), profile.get("max")])


def secret_columns(snapshot: dict[str, Any]) -> set[tuple[str, str]]:
    """``(table, column)`` (lower case) of every secret column of a snapshot."""
    return {
        (str(t["name"]).lower(), str(c["name"]).lower())
        for s in snapshot.get("schemas") or ()
        for t in s.get("tables") or ()
        for c in t.get("columns") or ()
        if secret_column(c)
    }


def mentions_secret(sql: str, known: Collection[tuple[str, str]] = ()) -> bool:
    """Whether ``sql`` may read a secret column: a word of its text names a secret, it names one of
    the ``known`` secret columns (:func:`secret_columns`), or it selects ``*`` from a table holding
    one. A cheap test on the text before :func:`reads_secret` parses it."""
    ws = words(sql)
    if any(w in SECRET_WORDS for w in ws) or any(p in SECRET_PAIRS for p in zip(ws, ws[1:], strict=False)):
        return True
    if not known:
        return False
    present = set(ws)
    return any(set(words(c)) <= present for _, c in known) or (
        "*" in sql and any(set(words(t)) <= present for t, _ in known)
    )


def reads_secret(sql: str, dialect: str, snapshot: dict[str, Any] | None = None) -> str | None:
    """Why ``sql`` would serve a secret (a column it reads, or ``*`` over a table with one), or None.

    With ``snapshot`` a column is judged by :func:`secret_column` (name, type and values); without
    one, by its name alone. SQL that cannot be parsed is judged by its words."""
    # parsing is needed only for SQL that mentions a secret (see mentions_secret)
    from sqlglot import exp

    from ctxtool.errors import CtxtoolError
    from ctxtool.sqlrefs import parse, references

    columns: dict[tuple[str, str], dict[str, Any]] = {}
    for s in (snapshot or {}).get("schemas") or ():
        for t in s.get("tables") or ():
            for c in t.get("columns") or ():
                columns[(str(t["name"]).lower(), str(c["name"]).lower())] = c
    try:
        tree = parse(sql, dialect)
        refs = references(tree, dialect)
    except CtxtoolError:
        hit = next((w for w in words(sql) if w in SECRET_WORDS), None)
        return f"it names {hit!r}: secrets are never served" if hit else None
    served = {c.name.lower() for c in tree.find_all(exp.Column) if _serves(c, exp)}
    for ref in refs.columns:
        if ref.column.lower() not in served:
            continue  # a join key or a subquery's link: its values never reach the answer
        column = columns.get((ref.table.lower(), ref.column.lower()))
        why = secret_column(column) if column is not None else secret_by_name(ref.column)
        if why:
            return f"it reads {ref.table}.{ref.column}: {why.split(':')[0]}; secrets are never served"
    stars = [s for s in tree.find_all(exp.Star) if not isinstance(s.parent, exp.Count)]
    if stars:
        for use in refs.tables:
            for (table, name), column in columns.items():
                if table == use.name.lower() and secret_column(column):
                    return f"it reads every column of {use.name}, {name} among them: secrets are never served"
    return None


def _serves(column: Any, exp: Any) -> bool:
    """Whether a column reference can put its values in front of someone: it is returned (not inside
    a WHERE, HAVING, JOIN, ORDER BY, GROUP BY or a COUNT), or compared there with constants or parameters only
    (``password = $1`` answers guesses). Compared with another column (a join, ``ssn IN (SELECT ssn
    ...)``), its values stay in the database."""
    comparison = None
    node, child = column.parent, column
    while node is not None:
        if isinstance(node, exp.Count):
            return False  # how many, never which
        if comparison is None and isinstance(node, exp.Predicate):
            comparison = (node, child)
        if isinstance(node, exp.Where | exp.Having | exp.Join | exp.Order | exp.Group):
            if comparison is None:
                return False
            pred, side = comparison
            others = [v for k, v in pred.args.items() if v is not side and isinstance(v, exp.Expression)]
            return not any(o.find(exp.Column) or o.find(exp.Subquery) for o in others)
        node, child = node.parent, node
    return True
