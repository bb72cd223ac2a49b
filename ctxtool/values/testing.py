"""``test-values``: run every value search of a context set against the live database and prove it.

For each search the engine finds the column(s) it covers (the ``'table.column' AS columns``
literal), samples stored values from them, and runs the search with ``$value`` bound as a
parameter (through the read-only :class:`~ctxtool.connectors.base.Connector`, never pasted into the
SQL) for the probes of :mod:`ctxtool.values.probes`. It checks the result shape (five columns,
their types, distance within [0, 1], the stored value found at distance 0), measures recall@5
under misspellings and partial values, precision on values that must not match, p50/p95 latency,
and, once the table is large enough to need one, whether the plan uses an index. A search that
errors is a finding at its ``file:line``, never a crash.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import Any

from ctxtool.contextset import ContextSet, Item
from ctxtool.errors import CtxtoolError
from ctxtool.values import probes as P

EXPECTED_COLUMNS = ("value", "columns", "concept_type", "distance", "context")
DEFAULT_SAMPLES = 20
DEFAULT_INDEX_MIN_ROWS = 10_000
COMMON_VALUE_SHARE = 0.05  # a value in this share of rows may rightly be read by a table scan
TOP_K = 5
_COLUMNS_LITERAL = re.compile(r"'((?:[^']|'')+)'\s+AS\s+[`\"]?columns[`\"]?(?![\w])", re.IGNORECASE)


@dataclass
class Check:
    name: str  # runs | shape | exact | nomatch | index | recall
    ok: bool
    message: str = ""


@dataclass
class SearchResult:
    """Everything ``test-values`` learned about one value search."""

    index: int
    pointer: str
    path: str
    line: int
    column: int
    concept_type: str
    columns: list[str] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    samples: int = 0
    probes: int = 0
    exact_found: float | None = None  # share of sampled values returned at distance 0
    recall_misspelling: float | None = None  # recall@5 under (b)
    recall_partial: float | None = None  # recall@5 under (c)
    precision_nomatch: float | None = None  # share of must-not-match probes that returned nothing
    p50_ms: float | None = None
    p95_ms: float | None = None
    table_rows: int | None = None
    index_used: bool | None = None  # None: table too small to need one, value too common, or unknown
    misses: list[dict[str, Any]] = field(default_factory=list)  # a few failed probes, for people

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["ok"] = self.ok
        out["location"] = self.location
        return out


@dataclass
class Report:
    path: str
    results: list[SearchResult]
    wall_seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    def summary(self) -> dict[str, Any]:
        def mean(values: list[float | None]) -> float | None:
            vals = [v for v in values if v is not None]
            return sum(vals) / len(vals) if vals else None

        return {
            "searches": len(self.results),
            "passed": sum(r.ok for r in self.results),
            "failed": sum(not r.ok for r in self.results),
            "recall_misspelling": mean([r.recall_misspelling for r in self.results]),
            "recall_partial": mean([r.recall_partial for r in self.results]),
            "precision_nomatch": mean([r.precision_nomatch for r in self.results]),
            "wall_seconds": round(self.wall_seconds, 3),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.path,
            "ok": self.ok,
            "summary": self.summary(),
            "searches": [r.to_dict() for r in self.results],
        }


# --------------------------------------------------------------------------- helpers


def searched_columns(sql: str) -> list[str]:
    """The ``table.column`` labels a search says it covers (its ``'...' AS columns`` literals)."""
    out: list[str] = []
    for m in _COLUMNS_LITERAL.finditer(sql):
        for label in m.group(1).replace("''", "'").split(","):
            label = label.strip()
            if label and label not in out:
                out.append(label)
    return out


def _split_label(label: str) -> tuple[str | None, str, str] | None:
    parts = label.split(".")
    if len(parts) == 2:
        return None, parts[0], parts[1]
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    return None


def resolve_labels(labels: Sequence[str], sql: str, dialect: str) -> dict[str, tuple[str | None, str, str]]:
    """``(schema, table, column)`` of each ``table.column`` label, its table found in the query.

    A label names the table as people say it (``books.author``); the query says where it is
    (``FROM lib.books``). An unqualified label takes the schema of the one table of that name in the
    query; with none (or several), it stays unqualified and the connection's search path finds it,
    as it finds the query's own unqualified names. A label with a schema is taken as written."""
    from ctxtool.sqlrefs import references

    try:
        tables = references(sql, dialect).tables
    except CtxtoolError:
        tables = []
    out: dict[str, tuple[str | None, str, str]] = {}
    for label in labels:
        split = _split_label(label)
        if split is None:
            continue
        schema, table, column = split
        if schema is None:
            schemas = {t.schema for t in tables if t.name.lower() == table.lower()}
            if len(schemas) == 1:
                schema = schemas.pop()
                table = next(t.name for t in tables if t.name.lower() == table.lower())
        out[label] = (schema, table, column)
    return out


def _quote(name: str, engine: str) -> str:
    if engine == "postgres":
        return '"' + name.replace('"', '""') + '"'
    return "`" + name.replace("`", "``") + "`"


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float, Decimal)):
        return float(value)
    return None


def _context_ok(value: Any) -> bool:
    if value is None or isinstance(value, (dict, list)):
        return True
    if isinstance(value, (bytes, bytearray)):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        if value.strip() == "":
            return True
        try:
            json.loads(value)
        except ValueError:
            return False
        return True
    # Spanner's JsonObject and similar wrappers serialize themselves
    return hasattr(value, "serialize") or isinstance(value, dict)


def _walk(node: Any) -> list[dict]:
    out: list[dict] = []
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            out.append(cur)
            stack.extend(cur.values())
        elif isinstance(cur, (list, tuple)):
            stack.extend(cur)
    return out


_NEEDS_DDL = re.compile(
    r"_soundex|_tokens|_embedding|ctxtool_embed|FULLTEXT|gin_trgm|similarity|soundex\(", re.I
)


def _ddl_hint(exc: Exception) -> str:
    """A pointer to the DDL when a drafted search fails because its index or column is missing."""
    if _NEEDS_DDL.search(str(exc)):
        return " (the search needs its DDL: `ctxtool draft values --dsn DSN --column T.C --emit-ddl`)"
    return ""


def plan_uses_index(engine: str, plan: Any, table: str) -> bool | None:
    """Whether ``plan`` (as :meth:`Connector.plan` returns it) reads ``table`` through an index.
    None when the plan's form is not understood."""
    nodes = _walk(plan)
    t = table.lower()
    if engine == "postgres":
        types = [
            (str(n.get("Node Type", "")), str(n.get("Relation Name", "")).lower())
            for n in nodes
            if "Node Type" in n
        ]
        if not types:
            return None
        if any(kind == "Seq Scan" and rel == t for kind, rel in types):
            return False
        return any("Index" in kind for kind, _ in types)
    if engine == "mysql":
        rows = [n for n in nodes if "type" in n or "access_type" in n]
        if not rows:
            text = json.dumps(plan, default=str).lower()
            return None if not text else ("fulltext" in text or '"key"' in text)
        uses = False
        for row in rows:
            kind = str(row.get("type") or row.get("access_type") or "").lower()
            key = row.get("key")
            name = row.get("table_name") or row.get("table")
            if kind == "all" and isinstance(name, str) and name.lower() in (t, "t"):
                return False
            if kind in ("fulltext", "ref", "eq_ref", "const", "range", "index_merge") or key:
                uses = True
        return uses
    if engine == "spanner":
        scans = [
            n["metadata"]
            for n in nodes
            if isinstance(n.get("metadata"), dict) and "scan_type" in n["metadata"]
        ]
        if scans:
            for md in scans:
                kind = str(md.get("scan_type", "")).lower()
                if "table" in kind and str(md.get("scan_target", "")).lower() == t:
                    return False
            return any("index" in str(md.get("scan_type", "")).lower() for md in scans)
        text = json.dumps(plan, default=str).lower()
        if not text or text == "null":
            return None
        if "search index" in text or "searchindex" in text or "search_index" in text:
            return True
        if re.search(r"index scan|scan_target[^,]*index|\"index\"", text):
            return True
        if "table scan" in text or "full scan" in text or "full_scan" in text:
            return False
        return None
    return None


_VECTOR_OPS = re.compile(r"<=>|<#>")
_TRIGRAM_OPS = re.compile(r"\s%\s|\bILIKE\b|\b(?:word_|strict_word_)?similarity\s*\(|<->", re.I)
_FULLTEXT_OPS = re.compile(r"\bMATCH\s*\(", re.I)
_SEARCH_OPS = re.compile(r"\bSEARCH(?:_NGRAMS|_SUBSTRING)?\s*\(", re.I)
_HELPER_SUFFIXES = ("soundex", "tokens", "embedding")


def needed_index(engine: str, sql: str) -> str:
    """The kind of index a search's filter needs to avoid reading the whole table:
    ``vector`` (pgvector HNSW/IVFFlat), ``trigram`` (a ``*_trgm_ops`` GIN/GiST), ``fulltext``
    (MySQL/MariaDB FULLTEXT), ``search`` (a Spanner search index) or ``btree`` (any index)."""
    if engine == "postgres":
        if _VECTOR_OPS.search(sql):
            return "vector"
        if _TRIGRAM_OPS.search(sql):
            return "trigram"
    elif engine == "mysql" and _FULLTEXT_OPS.search(sql):
        return "fulltext"
    elif engine == "spanner" and _SEARCH_OPS.search(sql):
        return "search"
    return "btree"


def _key_covers(key: str, column: str) -> bool:
    """Whether an index key (a column name or an expression) reads ``column`` or one of the helper
    columns ``draft values`` derives from it (``<column>_soundex``, ``_tokens``, ``_embedding``)."""
    bare = re.sub(r'["`]', "", str(key)).lower()
    col = column.lower()
    names = [col] + [f"{col}_{suffix}" for suffix in _HELPER_SUFFIXES]
    return any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", bare) for n in names)


def usable_indexes(kind: str, table: dict, column: str) -> list[str]:
    """Names of the indexes of ``table`` (a snapshot table) on ``column`` that can serve a filter
    needing ``kind`` (see :func:`needed_index`). Indexes the server marks invalid do not count."""
    out: list[str] = []
    for index in table.get("indexes") or []:
        if index.get("valid") is False:
            continue
        if not any(_key_covers(k, column) for k in index.get("columns") or []):
            continue
        method = str(index.get("method") or "").lower()
        opclasses = [str(o).lower() for o in index.get("opclasses") or []]
        if kind == "vector":
            ok = method in ("hnsw", "ivfflat")
        elif kind == "trigram":
            ok = method in ("gin", "gist") and any("trgm" in o for o in opclasses)
        elif kind == "fulltext":
            ok = method == "fulltext"
        elif kind == "search":
            ok = method == "search"
        else:
            ok = True
        if ok:
            out.append(str(index.get("name")))
    return out


def _scan_rows(engine: str, plan: Any, table: str) -> float | None:
    """The rows the PostgreSQL planner expects a sequential scan of ``table`` to keep, or None."""
    if engine != "postgres":
        return None
    for n in _walk(plan):
        if n.get("Node Type") == "Seq Scan" and str(n.get("Relation Name", "")).lower() == table.lower():
            rows = _as_number(n.get("Plan Rows"))
            if rows is not None:
                return rows
    return None


# --------------------------------------------------------------------------- the engine


class ValueTester:
    """Runs the probes of every value search of a set through one connector."""

    def __init__(
        self,
        connector: Any,
        *,
        samples: int = DEFAULT_SAMPLES,
        seed: int = 0,
        index_min_rows: int = DEFAULT_INDEX_MIN_ROWS,
        min_recall: float | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> None:
        self.connector = connector
        self.samples = samples
        self.seed = seed
        self.index_min_rows = index_min_rows
        self.min_recall = min_recall
        self.progress = progress or (lambda _msg: None)
        self.engine = getattr(connector, "engine", "postgres")
        self.quoting = "postgres" if getattr(connector, "dialect", self.engine) == "postgres" else "mysql"
        self._row_counts: dict[str, int | None] = {}
        self._snapshot: dict | None = None  # the catalog, read once the first time a plan scans
        self._dialect = getattr(connector, "dialect", self.engine) or self.engine
        self._labels: dict[str, tuple[str | None, str, str]] = {}  # label -> where its table is

    def _split(self, label: str) -> tuple[str | None, str, str] | None:
        """``label``'s schema, table and column, its table as the search's query names it."""
        return self._labels.get(label) or _split_label(label)

    # -- running one statement

    def run(self, sql: str, value: str) -> tuple[Any, float]:
        """Run ``sql`` with ``$value`` bound; return the result and the elapsed milliseconds."""
        start = time.perf_counter()
        result = self.connector.query(sql, {"value": value})
        return result, (time.perf_counter() - start) * 1000.0

    def _sample(self, label: str) -> list[str]:
        split = self._split(label)
        if split is None:
            return []
        schema, table, column = split
        values = self.connector.sample_column(table, column, max(self.samples * 5, 100), schema=schema)
        values = [str(v) for v in values if v is not None and str(v).strip()]
        rng = random.Random(f"{self.seed}:{label}")
        if len(values) > self.samples:
            values = rng.sample(values, self.samples)
        return values

    def _row_count(self, label: str) -> int | None:
        split = self._split(label)
        if split is None:
            return None
        schema, table, _ = split
        key = f"{schema}.{table}"
        if key not in self._row_counts:
            ref = (_quote(schema, self.quoting) + "." if schema else "") + _quote(table, self.quoting)
            try:
                result = self.connector.query(f"SELECT COUNT(*) FROM {ref}")
                self._row_counts[key] = int(result.rows[0][0])
            except CtxtoolError:
                self._row_counts[key] = None
        return self._row_counts[key]

    # -- one search

    def test_search(self, cs: ContextSet, item: Item) -> SearchResult:
        sql = item.data.get("query")
        ptr = item.field_pointer("query")
        line, col = cs.position(ptr if "query" in item.data else item.source_pointer)
        res = SearchResult(
            index=item.index,
            pointer=item.source_pointer,
            path=cs.path,
            line=line,
            column=col,
            concept_type=str(item.data.get("concept_type") or ""),
        )
        if not isinstance(sql, str) or "$value" not in sql:
            res.checks.append(Check("runs", False, "the search has no query with a $value placeholder"))
            return res
        res.columns = searched_columns(sql)
        self._labels.update(resolve_labels(res.columns, sql, self._dialect))
        if not res.columns:
            try:
                self.run(sql, "test")
            except CtxtoolError as exc:
                res.checks.append(Check("runs", False, f"the search failed: {exc}"))
                return res
            res.checks.append(
                Check(
                    "runs",
                    False,
                    "cannot tell which column the search covers: project 'table.column' AS columns",
                )
            )
            return res
        try:
            samples: list[str] = []
            for label in res.columns:
                samples.extend(self._sample(label))
        except CtxtoolError as exc:
            res.checks.append(Check("runs", False, f"cannot sample {', '.join(res.columns)}: {exc}"))
            return res
        res.samples = len(samples)
        probes = P.make_probes(samples, seed=self.seed)
        res.probes = len(probes)
        times: list[float] = []
        shape_errors: list[str] = []
        hits: dict[str, list[bool]] = {k: [] for k in P.KINDS}
        exact_errors: list[str] = []
        false_exact: list[str] = []
        for probe in probes:
            try:
                result, ms = self.run(sql, probe.text)
            except CtxtoolError as exc:
                res.checks.append(
                    Check("runs", False, f"the search failed for {probe.text!r}: {exc}{_ddl_hint(exc)}")
                )
                return res
            times.append(ms)
            rows = list(result.rows)
            if not shape_errors:
                shape_errors = self._shape(result)
            values = [str(r[0]) if r and r[0] is not None else "" for r in rows]
            dist = [_as_number(r[3]) if len(r) > 3 else None for r in rows]
            if probe.kind == "nomatch":
                hits["nomatch"].append(not rows)
                if any(d == 0 for d in dist):
                    false_exact.append(probe.text)
                if rows and len(res.misses) < 8:
                    res.misses.append({"kind": probe.kind, "probe": probe.text, "returned": values[:3]})
                continue
            hit = P.hit_at(probe.expected or "", values, TOP_K)
            hits[probe.kind].append(hit)
            if probe.kind == "exact":
                at = [d for v, d in zip(values, dist, strict=True) if v == probe.expected]
                if not at:
                    exact_errors.append(f"{probe.text!r} not returned")
                elif min(d if d is not None else 1.0 for d in at) > 1e-6:
                    exact_errors.append(
                        f"{probe.text!r} returned at distance {min(d or 0 for d in at):.3g}, not 0"
                    )
            if not hit and len(res.misses) < 8:
                res.misses.append(
                    {
                        "kind": probe.kind,
                        "probe": probe.text,
                        "how": probe.how,
                        "expected": probe.expected,
                        "returned": values[:3],
                    }
                )
        res.checks.append(Check("runs", True))
        res.checks.append(Check("shape", not shape_errors, "; ".join(shape_errors)))
        res.exact_found = P.ratio(sum(hits["exact"]), len(hits["exact"]))
        res.recall_misspelling = P.ratio(sum(hits["misspelling"]), len(hits["misspelling"]))
        res.recall_partial = P.ratio(sum(hits["partial"]), len(hits["partial"]))
        res.precision_nomatch = P.ratio(sum(hits["nomatch"]), len(hits["nomatch"]))
        if hits["exact"]:
            msg = (
                f"{len(exact_errors)} of {len(hits['exact'])} sampled values: " + "; ".join(exact_errors[:3])
                if exact_errors
                else ""
            )
            res.checks.append(Check("exact", not exact_errors, msg))
        res.checks.append(
            Check(
                "nomatch",
                not false_exact,
                f"returned a distance-0 hit for a value that must not match: {false_exact[0]!r}"
                if false_exact
                else "",
            )
        )
        if self.min_recall is not None and res.recall_misspelling is not None:
            ok = res.recall_misspelling >= self.min_recall
            res.checks.append(
                Check(
                    "recall",
                    ok,
                    ""
                    if ok
                    else f"recall@5 under misspellings {res.recall_misspelling:.2f} < {self.min_recall}",
                )
            )
        res.p50_ms = P.percentile(times, 0.5)
        res.p95_ms = P.percentile(times, 0.95)
        self._check_index(res, sql, samples)
        return res

    def _shape(self, result: Any) -> list[str]:
        errors: list[str] = []
        cols = [str(c).lower() for c in result.columns]
        if tuple(cols) != EXPECTED_COLUMNS:
            errors.append(
                f"projects ({', '.join(cols)}); must be exactly ({', '.join(EXPECTED_COLUMNS)}) in that order"
            )
            return errors
        for row in result.rows:
            value, columns, concept, distance, context = row
            if not isinstance(value, str):
                errors.append(f"value is {type(value).__name__}, not text (cast it to text)")
            if not isinstance(columns, str):
                errors.append(f"columns is {type(columns).__name__}, not text")
            if not isinstance(concept, str):
                errors.append(f"concept_type is {type(concept).__name__}, not text")
            d = _as_number(distance)
            if d is None:
                errors.append(f"distance is {type(distance).__name__}, not a number")
            elif not (0.0 <= d <= 1.0) or d != d:
                errors.append(f"distance {d:.4g} is outside [0, 1]")
            if not _context_ok(context):
                errors.append("context is neither empty nor JSON")
            if errors:
                break
        return errors

    def _check_index(self, res: SearchResult, sql: str, samples: Sequence[str]) -> None:
        rows = [self._row_count(label) for label in res.columns]
        known = [r for r in rows if r is not None]
        res.table_rows = max(known) if known else None
        if res.table_rows is None or res.table_rows < self.index_min_rows:
            return
        value = samples[0] if samples else "x"
        try:
            plan = self.connector.plan(sql, {"value": value})
        except CtxtoolError as exc:
            res.checks.append(Check("index", False, f"cannot plan the search: {exc}"))
            return
        verdicts = []
        for label in res.columns:
            split = self._split(label)
            if split:
                verdicts.append(plan_uses_index(self.engine, plan, split[1]))
        if any(v is False for v in verdicts):
            self._check_scan(res, sql, value, plan)
        elif verdicts and all(v is True for v in verdicts):
            res.index_used = True
            res.checks.append(Check("index", True))

    def _usable(self, label: str, sql: str) -> tuple[str, list[str]] | None:
        """(the index kind the search needs on ``label``, the existing indexes that provide it), from
        the catalog; None when the catalog cannot say."""
        from ctxtool.snapshot import find_table

        split = self._split(label)
        if split is None:
            return None
        schema, table, column = split
        if self._snapshot is None:
            try:
                self._snapshot = self.connector.introspect([schema] if schema else None)
            except CtxtoolError:
                self._snapshot = {}
        found = find_table(self._snapshot, table, schema) if self._snapshot.get("schemas") else None
        if found is None:
            return None
        kind = needed_index(self.engine, sql)
        return kind, usable_indexes(kind, found, column)

    def _share(self, label: str, value: str) -> float | None:
        """The share of the rows of ``label``'s table holding ``value`` (None when unknown)."""
        split = self._split(label)
        rows = self._row_count(label)
        if split is None or not rows:
            return None
        schema, table, column = split
        ref = (_quote(schema, self.quoting) + "." if schema else "") + _quote(table, self.quoting)
        as_text = {"postgres": "text", "mysql": "CHAR", "spanner": "STRING"}.get(self.engine, "CHAR")
        col = f"CAST({_quote(column, self.quoting)} AS {as_text})"
        try:
            result = self.connector.query(
                f"SELECT COUNT(*) FROM {ref} WHERE {col} = $value", {"value": value}
            )
            return int(result.rows[0][0]) / rows
        except CtxtoolError:
            return None

    def _check_scan(self, res: SearchResult, sql: str, value: str, plan: Any) -> None:
        """The plan for a sampled value reads a whole table. That is a defect when the search has no
        index for its filter, or when the planner ignores the index for a selective value; for a
        value many rows hold (a low-cardinality column) a scan is the planner's right choice: a
        note, not a failure."""
        lookups = [(label, self._usable(label, sql)) for label in res.columns]
        if any(found is None for _, found in lookups):
            res.index_used = False
            res.checks.append(
                Check(
                    "index",
                    False,
                    f"reads all {res.table_rows} rows without an index; `ctxtool draft values --emit-ddl` prints one",
                )
            )
            return
        missing = [(label, found[0]) for label, found in lookups if found is not None and not found[1]]
        if missing:
            res.index_used = False
            what = ", ".join(f"no {kind} index on {label}" for label, kind in missing)
            res.checks.append(
                Check(
                    "index",
                    False,
                    f"reads all {res.table_rows} rows without an index ({what}); "
                    "`ctxtool draft values --emit-ddl` prints it",
                )
            )
            return
        names = ", ".join(sorted({n for _, found in lookups if found is not None for n in found[1]}))
        shares = [self._share(label, value) for label in res.columns]
        share = max((s for s in shares if s is not None), default=None)
        split = self._split(res.columns[0])
        expected = _scan_rows(self.engine, plan, split[1]) if split else None
        if expected is not None and res.table_rows:
            share = max(share or 0.0, expected / res.table_rows)
        if share is not None and share >= COMMON_VALUE_SHARE:
            res.index_used = None  # present, and rightly not used for this value
            res.checks.append(
                Check(
                    "index",
                    True,
                    f"low cardinality: {value!r} matches about {share:.0%} of the {res.table_rows} rows, so the "
                    f"planner rightly reads the table instead of {names}",
                )
            )
            return
        res.index_used = False
        held = f" ({value!r} matches about {share:.1%} of them)" if share is not None else ""
        res.checks.append(
            Check(
                "index",
                False,
                f"reads all {res.table_rows} rows{held} although {names} exists; "
                "ANALYZE the table, or check the index definition (partial? expression?)",
            )
        )

    def test_set(self, cs: ContextSet) -> Report:
        start = time.perf_counter()
        results = []
        for item in cs.items("value_searches"):
            self.progress(f"{item.data.get('concept_type') or item.source_pointer}")
            results.append(self.test_search(cs, item))
        return Report(cs.path, results, time.perf_counter() - start)


def test_values(cs: ContextSet, connector: Any, **options: Any) -> Report:
    """Test every value search of ``cs`` through ``connector`` (see :class:`ValueTester`)."""
    return ValueTester(connector, **options).test_set(cs)


test_values.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


# --------------------------------------------------------------------------- one value, for people


@dataclass
class ProbeRow:
    search: str  # concept type (location)
    location: str
    rows: list[tuple[Any, ...]]
    ms: float | None
    error: str | None = None


def probe_value(cs: ContextSet, connector: Any, value: str) -> list[ProbeRow]:
    """What each search returns for ``value`` (``test-values --probe``)."""
    out: list[ProbeRow] = []
    tester = ValueTester(connector)
    for item in cs.items("value_searches"):
        line, col = cs.position(item.field_pointer("query"))
        loc = f"{cs.path}:{line}:{col}"
        name = str(item.data.get("concept_type") or item.source_pointer)
        sql = item.data.get("query")
        if not isinstance(sql, str):
            out.append(ProbeRow(name, loc, [], None, "no query"))
            continue
        try:
            result, ms = tester.run(sql, value)
        except CtxtoolError as exc:
            out.append(ProbeRow(name, loc, [], None, str(exc)))
            continue
        out.append(ProbeRow(name, loc, [tuple(r) for r in result.rows], ms))
    return out
