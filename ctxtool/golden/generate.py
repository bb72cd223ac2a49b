"""A golden dataset generated from a context set and its database.

For each template: its own question, questions in other words (:mod:`ctxtool.golden.wording`:
synonyms, a phrase moved to the front, another question form, a terse form), misspellings of its
words and of its values, a distraction, other values of the same slot drawn from the data (the
golden SQL bound to each, kept only when its result is not empty), and one negative that must be
declined (a value the column lacks, an attribute the database lacks). For the set: requests out of
scope (a write, a question no database answers). From a workload log: its read queries described
as questions (the drafting describer). Every item is tagged by how it was made and names its
template; every SQL reaches the database through :func:`ctxtool.readonly.run_read_only`.

A negative's ``golden_sql`` is the SQL of the template it was made from; ``ctxtool eval`` never runs
it: a question tagged ``negative`` is right only when declined.

``split`` puts the items of a fraction of the templates (chosen by the seed) into a held-out file
that ``improve`` never reads: the paraphrases of a held-out template are all held out, so what is
measured there was not tuned on.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxtool.dialects import normalize
from ctxtool.english import thesaurus
from ctxtool.errors import CtxtoolError, InputError
from ctxtool.golden import wording
from ctxtool.identifiers import words_of
from ctxtool.jsondoc import write_text_atomic
from ctxtool.parameterize.extract import SqlValue, extract_values
from ctxtool.readonly import run_read_only

__all__ = [
    "NEGATIVE_TAG",
    "Dataset",
    "GoldenItem",
    "generate_dataset",
    "heldout_path",
]

NEGATIVE_TAG = "negative"
VALUE_CONTEXTS = ("compare", "in", "like")
SAMPLE_VALUES = 50  # distinct values read per slot to draw other values from
# Attributes of general English that a question may ask for; one the database has no column for
# makes a negative (checked against the database's own words before use).
ATTRIBUTES = (
    "blood type",
    "shoe size",
    "zodiac sign",
    "eye colour",
    "favourite song",
    "moon phase",
    "wind speed",
    "heart rate",
)
OUT_OF_SCOPE = (
    ("write", "Delete all the {thing}."),
    ("write", "Add a new {one} called Test."),
    ("chat", "What will the weather be like tomorrow?"),
    ("chat", "Write a short poem about {thing}."),
)


@dataclass
class GoldenItem:
    """One golden question in the documented ``{id, database, nlq, golden_sql, tags}`` format;
    ``template`` (the ``nl_query`` it was made from) is an optional field ``eval`` groups by."""

    id: str
    database: str
    nlq: str
    golden_sql: str
    tags: list[str]
    template: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "database": self.database,
            "nlq": self.nlq,
            "golden_sql": self.golden_sql,
            "tags": self.tags,
        }
        if self.template is not None:
            out["template"] = self.template
        return out


@dataclass
class Dataset:
    """The generated items, the held-out ones, and an audit of how they were made."""

    items: list[GoldenItem] = field(default_factory=list)
    heldout: list[GoldenItem] = field(default_factory=list)
    report: dict[str, Any] = field(default_factory=dict)

    def write(self, path: str, heldout: str | None = None) -> list[str]:
        """Write the items (and the held-out items, to ``heldout`` or :func:`heldout_path`)
        atomically; returns the paths written."""
        write_text_atomic(path, dumps(self.items))
        written = [path]
        if self.heldout:
            other = heldout or heldout_path(path)
            write_text_atomic(other, dumps(self.heldout))
            written.append(other)
        return written


def dumps(items: Sequence[GoldenItem]) -> str:
    return json.dumps([i.to_dict() for i in items], indent=2, ensure_ascii=False) + "\n"


def heldout_path(path: str) -> str:
    """``golden.json`` -> ``golden.heldout.json``."""
    p = Path(path)
    return str(p.with_name(f"{p.stem}.heldout{p.suffix or '.json'}"))


def _literal(text: str, dialect: str) -> str:
    body = text.replace("'", "''")
    if dialect == "mysql":
        body = body.replace("\\", "\\\\")
    return f"'{body}'"


def _ident(name: str) -> str:
    return name if re.fullmatch(r"[a-z_][a-z0-9_]*", name) else '"' + name.replace('"', '""') + '"'


def _quote(name: str, dialect: str) -> str:
    if dialect == "mysql":
        return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else "`" + name.replace("`", "``") + "`"
    if dialect == "spanner":
        return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else f"`{name}`"
    return _ident(name)


def _rebound(sql: str, v: SqlValue, value: str, dialect: str) -> str:
    return sql[: v.start] + _literal(v.like_prefix + value + v.like_suffix, dialect) + sql[v.end :]


def _nonempty(rows: Sequence[Sequence[Any]]) -> bool:
    """Rows that say something: not none, and not one row of nothing but NULLs and zeros."""
    if not rows:
        return False
    if len(rows) == 1:
        return any(x not in (None, 0, 0.0) for x in rows[0])
    return True


def _schema_words(snapshot: dict[str, Any]) -> set[str]:
    out: set[str] = set()
    for sc in snapshot.get("schemas") or []:
        for t in sc.get("tables") or []:
            out.update(words_of(t["name"]).split())
            for c in t.get("columns") or []:
                out.update(words_of(c["name"]).split())
    return {w.lower() for w in out}


def _absent_attribute(schema_words: set[str], rng: random.Random) -> str | None:
    """An attribute whose words the database never uses, nor a synonym of them."""
    options = list(ATTRIBUTES)
    rng.shuffle(options)
    for attr in options:
        words = attr.split()
        if any(w in schema_words or any(thesaurus.related(w, s) for s in schema_words) for w in words):
            continue
        return attr
    return None


def _scrambled(value: str, rng: random.Random) -> str:
    """A value no column holds: the letters of each word shuffled (case kept at the start)."""
    out = []
    for w in value.split():
        letters = list(w.lower())
        rng.shuffle(letters)
        s = "".join(letters)
        out.append(s.capitalize() if w[:1].isupper() else s)
    return " ".join(out)


def _find_phrase(question: str, phrase: str) -> tuple[int, int] | None:
    m = re.search(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", question, re.I)
    return (m.start(), m.end()) if m else None


class _Generator:
    def __init__(
        self, connector: Any, dialect: str, database: str, seed: int, values_per_slot: int, snapshot: dict
    ) -> None:
        self.connector = connector
        self.dialect = dialect
        self.database = database
        self.seed = seed
        self.values_per_slot = values_per_slot
        self.snapshot = snapshot
        self.schema_words = _schema_words(snapshot)
        self.report: dict[str, Any] = {
            "templates": 0,
            "templates_skipped": [],
            "own_sql_empty": [],
            "own_sql_failed": [],
            "value_candidates_rejected": 0,
            "workload": {"queries": 0, "skipped": 0},
        }
        self._samples: dict[tuple[str, str], list[str]] = {}

    def rows(self, sql: str) -> list[Any] | None:
        """The rows of ``sql``, or None when it fails."""
        try:
            return list(run_read_only(self.connector, sql, dialect=self.dialect, max_rows=50).rows)
        except CtxtoolError:
            return None

    def sample(self, table: str, column: str) -> list[str]:
        key = (table, column)
        if key not in self._samples:
            col = _quote(column, self.dialect)
            tab = ".".join(_quote(p, self.dialect) for p in table.split("."))
            sql = f"SELECT DISTINCT {col} FROM {tab} WHERE {col} IS NOT NULL ORDER BY 1 LIMIT {SAMPLE_VALUES}"
            rows = self.rows(sql) or []
            self._samples[key] = [str(r[0]) for r in rows if isinstance(r[0], str) and r[0].strip()]
        return self._samples[key]

    def template_items(self, index: int, t: dict[str, Any]) -> list[GoldenItem]:
        nlq, sql = t.get("nl_query"), t.get("sql")
        if not isinstance(nlq, str) or not isinstance(sql, str) or not nlq.strip() or not sql.strip():
            self.report["templates_skipped"].append({"index": index, "reason": "no nl_query or sql"})
            return []
        self.report["templates"] += 1
        rng = random.Random(f"{self.seed}:{index}:{nlq}")
        own = self.rows(sql)
        if own is None:
            self.report["own_sql_failed"].append(nlq)
        elif not _nonempty(own):
            self.report["own_sql_empty"].append(nlq)
        try:
            values = [v for v in extract_values(sql, self.dialect).values if v.kind == "string"]
        except CtxtoolError:
            values = []
        slots = [(v, span) for v in values if (span := _find_phrase(nlq, v.phrase))]
        keep = [span for _, span in slots]
        out: list[GoldenItem] = []

        def add(kind: str, text: str | None, golden: str = sql, *extra: str) -> None:
            if text and text.strip() and all(text != o.nlq for o in out):
                n = sum(1 for o in out if o.tags[0] == kind)
                out.append(
                    GoldenItem(
                        f"{self.database}-t{index:03d}-{kind}-{n}",
                        self.database,
                        text,
                        golden,
                        [kind, *extra],
                        nlq,
                    )
                )

        add("original", nlq)
        add("paraphrase", wording.paraphrased(nlq, keep, rng))
        add("paraphrase", wording.paraphrased(nlq, keep, rng, words=1))
        add("reorder", wording.reordered(nlq, keep, rng))
        add("question-form", wording.other_form(nlq, keep, rng))
        add("terse", wording.terse(nlq, keep, rng))
        add("misspelling", wording.misspelled(nlq, keep, rng))
        if keep:
            add("value-misspelling", wording.misspelled(nlq, keep, rng, in_value=True))
        add("distraction", wording.distracted(nlq, keep, rng))
        for v, (a, b) in slots:
            if not (v.column and v.table and v.context in VALUE_CONTEXTS):
                continue
            pool = [s for s in self.sample(v.table, v.column) if s.lower() != v.phrase.lower()]
            rng.shuffle(pool)
            found = 0
            for other in pool[: self.values_per_slot * 4]:
                if found >= self.values_per_slot:
                    break
                golden = _rebound(sql, v, other, self.dialect)
                rows = self.rows(golden)
                if rows is None or not _nonempty(rows):
                    self.report["value_candidates_rejected"] += 1
                    continue
                add("value", nlq[:a] + other + nlq[b:], golden)
                found += 1
        out.extend(self.negatives(index, nlq, sql, slots, rng))
        return out

    def negatives(
        self,
        index: int,
        nlq: str,
        sql: str,
        slots: list[tuple[SqlValue, tuple[int, int]]],
        rng: random.Random,
    ) -> list[GoldenItem]:
        """One question of this template's shape the database cannot answer."""

        def item(kind: str, text: str) -> GoldenItem:
            return GoldenItem(
                f"{self.database}-t{index:03d}-{kind}-0", self.database, text, sql, [NEGATIVE_TAG, kind], nlq
            )

        for v, (a, b) in slots:
            if v.context != "compare" or len(v.phrase) < 4:
                continue
            absent = _scrambled(v.phrase, rng)
            rows = self.rows(_rebound(sql, v, absent, self.dialect))
            if rows is not None and not _nonempty(rows):
                return [item("absent-value", nlq[:a] + absent + nlq[b:])]
        attr = _absent_attribute(self.schema_words, rng)
        if attr:
            return [item("absent-column", f"{nlq.rstrip('?.! ')}, by {attr}?")]
        return []

    def out_of_scope(self, sql: str) -> list[GoldenItem]:
        tables = [t["name"] for sc in self.snapshot.get("schemas") or [] for t in sc.get("tables") or []]
        thing = words_of(tables[0]).lower() if tables else "records"
        one = thing
        if not thing.endswith("s"):
            thing += "s"
        out = []
        for k, (kind, text) in enumerate(OUT_OF_SCOPE):
            out.append(
                GoldenItem(
                    f"{self.database}-scope-{k}",
                    self.database,
                    text.format(thing=thing, one=one),
                    sql,
                    [NEGATIVE_TAG, "out-of-scope", kind],
                )
            )
        return out

    def workload_items(self, path: str) -> list[GoldenItem]:
        from ctxtool.draft.describe import Describer
        from ctxtool.draft.model import Model
        from ctxtool.draft.workload import group_statements, read_log

        model = Model(self.snapshot)
        wl = group_statements(read_log(path), self.dialect, known_tables=[t.name for t in model.tables])
        describer = Describer(model)
        out = []
        for k, q in enumerate(wl.queries):
            self.report["workload"]["queries"] += 1
            if q.placeholders:
                self.report["workload"]["skipped"] += 1
                continue
            sql = q.ranked_examples[0]
            try:
                question, _phrase = describer.wordings(sql)
            except CtxtoolError:
                question = None
            if not question:
                self.report["workload"]["skipped"] += 1
                continue
            out.append(GoldenItem(f"{self.database}-w{k:03d}", self.database, question, sql, ["workload"]))
        return out


def generate_dataset(
    data: dict[str, Any],
    connector: Any,
    *,
    database: str | None = None,
    seed: int = 0,
    split: float = 0.0,
    workload: str | None = None,
    values_per_slot: int = 2,
    snapshot: dict[str, Any] | None = None,
    progress: Callable[[list[Any]], Any] | None = None,
) -> Dataset:
    """A golden dataset for the context set ``data`` (a parsed set file) on the database of
    ``connector``; ``split`` of its templates (0..1) go to the held-out items. Deterministic for a
    given ``seed``, set and database."""
    if not 0.0 <= split < 1.0:
        raise InputError(f"--split {split}: give a fraction of the templates from 0 to below 1 (e.g. 0.2)")
    templates = data.get("templates") if isinstance(data, dict) else None
    if not isinstance(templates, list) or not templates:
        raise InputError("the set has no templates to make golden questions from")
    dialect = normalize(connector.dialect)
    snap = snapshot if snapshot is not None else connector.introspect()
    gen = _Generator(connector, dialect, database or snap.get("database") or "", seed, values_per_slot, snap)
    groups: list[list[GoldenItem]] = []
    indexed = list(enumerate(templates))
    for i, t in progress(indexed) if progress else indexed:
        if isinstance(t, dict):
            groups.append(gen.template_items(i, t))
    groups = [g for g in groups if g]
    first_sql = next(t["sql"] for t in templates if isinstance(t, dict) and isinstance(t.get("sql"), str))
    extra = gen.out_of_scope(first_sql)
    if workload:
        extra += gen.workload_items(workload)
    rng = random.Random(f"{seed}:split")
    held = set(rng.sample(range(len(groups)), math.ceil(split * len(groups)))) if split else set()
    ds = Dataset()
    for k, g in enumerate(groups):
        (ds.heldout if k in held else ds.items).extend(g)
    for it in extra:
        (ds.heldout if split and rng.random() < split else ds.items).append(it)
    every = ds.items + ds.heldout
    per_template = [len(g) for g in groups]
    gen.report.update(
        {
            "database": gen.database,
            "seed": seed,
            "split": split,
            "items": len(ds.items),
            "heldout_items": len(ds.heldout),
            "heldout_templates": len(held),
            "items_per_template": round(sum(per_template) / len(per_template), 2) if per_template else 0,
            "min_items_per_template": min(per_template, default=0),
            "by_tag": dict(sorted(Counter(t for it in every for t in it.tags).items())),
        }
    )
    ds.report = gen.report
    return ds
