"""Values a question states in a template's own words: the words of a quoted name written for two
side-by-side slots ("$1 $2": a first and a last name), and a template's example value the question
repeats word for word or abbreviates ("... born in California", "LA" for 'Los Angeles', "female"
for the code 'F' its wording glosses) when no value search covers its column."""

from __future__ import annotations

import re

from ctxtool.english.content import content_tokens
from ctxtool.runtime.question.linking import LinkedValue
from ctxtool.runtime.question.values import Entity
from ctxtool.runtime.templates.compiled import Compiled

_ADJACENT = re.compile(r"(\$\d+|\?)[\s]+(\$\d+|\?)")


def split_names(question: str, templates: list[Compiled], entities: list[Entity]) -> bool:
    """Add the words of a two-word quoted value as parts when a template writes two placeholders
    side by side ("How many clubs does "$1 $2" belong to?": a first and a last name): "Linda Smith"
    fills both. The whole value stays; a template binds either it or its parts. True when added."""
    if not any(e.kind == "quoted" for e in entities):
        return False
    pairs = any(
        _ADJACENT.search(t.parameterized_intent) and sum(1 for s in t.slots if s.kind == "text") >= 2
        for t in templates
    )
    if not pairs:
        return False
    added = False
    for e in list(entities):
        if e.kind != "quoted" or not isinstance(e.value, str):
            continue
        words = list(re.finditer(r"\S+", e.text))
        if len(words) != 2:
            continue
        base = question.find(e.text, e.start)
        if base < 0:
            continue
        for w in words:
            a, b = base + w.start(), base + w.end()
            if any(o.part and (o.start, o.end) == (a, b) for o in entities):
                continue
            entities.append(Entity("quoted", w.group(), a, b, w.group(), part=True))
            added = True
    if added:
        entities.sort(key=lambda x: (x.start, -x.end))
    return added


def _displaceable(entity: Entity, start: int, end: int) -> bool:
    """A reading that the template's own example, repeated word for word over ``start..end``, is
    better than: a stored value found only approximately ("ACCT-211" ~ 'Accounting'), or a number
    inside the repeated value ("DRE 102")."""
    if entity.kind == "linked":
        return entity.link is not None and entity.link.distance > 0
    if entity.kind == "quoted":  # words in capitals, quoted by their case alone
        return entity.literal is not None and entity.literal.capitals
    if entity.kind == "number":
        return start <= entity.start and entity.end <= end and (end - start) > (entity.end - entity.start)
    return False


def _also_read_as(
    entity: Entity, m: re.Match[str], core: str, column: str, question: str = "", wording: str = ""
) -> bool:
    """A phrase linked exactly on another column that is also the template's example on its own
    ("Fall" a person's name and the example season; a quoted "CV" a type code and the example
    of a title pattern), or the example with words the template's own wording writes beside it
    ("Green Valley" a region, and 'Green' in "... in $1 Valley"): that reading is kept as an
    alternative, for the templates that compare the example's column. True when ``entity`` now
    carries it."""
    lv = entity.link
    spans = {(entity.start, entity.end)} | ({_unquoted(entity, question)} if question else set())
    if lv is None or lv.distance > 0:
        return False
    if m.span() not in spans:
        a, b = _unquoted(entity, question) if question else (entity.start, entity.end)
        if not (a <= m.start() and m.end() <= b) or not question or not wording:
            return False
        rest = content_tokens(question[a : m.start()] + " " + question[m.end() : b])
        if not rest or not set(rest) <= set(content_tokens(wording)):
            return False
    if not any(a.column == column and str(a.value) == core for a in lv.alternatives):
        lv.alternatives.append(LinkedValue(lv.phrase, lv.start, lv.end, core, column, "", 0.0, -1))
    return True


def _repeated(core: str, question: str) -> re.Match[str] | None:
    """Where ``question`` repeats the example value ``core``: as a word, case-insensitively; a single
    letter ("sex is F", "a grade C") only as a capital standing alone, and never the article "A" or
    the pronoun "I" unless "an" announces it ("received an A")."""
    if len(core) >= 2:  # "Boeing 737-800s", "cats" for 'Cat': a plural of the value is the value
        plural = r"'?s?" if len(core) >= 4 else r"s?" if len(core) == 3 and core.isalpha() else ""
        return re.search(r"(?<![\w])" + re.escape(core) + r"(?=" + plural + r"(?![\w]))", question, re.I)
    if not (core.isalpha() and core.isupper()):
        return None
    for m in re.finditer(r"(?<![\w'’-])" + re.escape(core) + r"(?![\w'’-])", question):
        if core in "AI" and not re.search(r"\ban\s+$", question[: m.start()], re.I):
            continue
        return m
    return None


_CODE = re.compile(r"[A-Z]{1,3}")


def _word_at(question: str, word: str) -> re.Match[str] | None:
    """``word`` standing alone in ``question`` (case-insensitively; "all-female" holds "female"), or
    its plural."""
    return re.search(r"(?<![\w])" + re.escape(word) + r"(?:s|es)?(?![\w])", question, re.I)


def _glosses(core: str, wording: str) -> list[str]:
    """The words of a template's own wording that an example code in parentheses abbreviates:
    "female (sex is F)", "the male ward (with gender M)": one of the two words before the
    parenthesis, beginning with the code's letters."""
    out: list[str] = []
    for m in re.finditer(r"([A-Za-z][\w'-]*(?:\s+[A-Za-z][\w'-]*)?)\s*\(([^()]*)\)", wording):
        if not re.search(r"(?<![\w])" + re.escape(core) + r"(?![\w])", m.group(2)):
            continue
        for w in m.group(1).split():
            low = w.lower()
            if len(low) >= 3 and low != core.lower() and low.startswith(core.lower()) and low.isalpha():
                toks = content_tokens(low)  # a word of counting ("many") glosses nothing
                if not toks or any(t.startswith("__") for t in toks) or low in out:
                    continue
                out.append(low)
    return out


def _abbreviated(core: str, question: str, wording: str) -> re.Match[str] | None:
    """Where ``question`` states the example value ``core`` in its long or short form: the initials
    of a name of several words ("LA" for 'Los Angeles', "UK" for 'United Kingdom'), a capitalized
    word an upper-case code begins ("Xanadu" for 'XA'), or the word the template's own wording
    glosses a one-letter code with ("female" for 'F' in "female (sex is F)")."""
    words = core.split()
    if len(words) >= 2 and all(w[:1].isupper() for w in words):
        initials = "".join(w[0] for w in words)
        return re.search(r"(?<![\w.])" + re.escape(initials) + r"(?![\w])", question)
    if not _CODE.fullmatch(core):
        return None
    if len(core) >= 2:
        rx = r"(?<![\w])" + re.escape(core[0]) + re.escape(core[1:].lower()) + r"[a-z]{3,}(?![\w])"
        m = re.search(rx, question)
        if m is not None:
            return m
    for gloss in _glosses(core, wording):
        m = _word_at(question, gloss)
        if m is not None:
            return m
    return None


def _unquoted(entity: Entity, question: str) -> tuple[int, int]:
    """The entity's span without the quotes around it (a quoted string keeps them in its span)."""
    a, b = entity.start, entity.end
    while a < b and question[a] in "\"'“”‘’":
        a += 1
    while b > a and question[b - 1] in "\"'“”‘’":
        b -= 1
    return a, b


def stated_values(question: str, templates: list[Compiled], entities: list[Entity]) -> bool:
    """Add to ``entities`` the text values of ``templates``' examples that the question repeats word
    for word ("... born in California" against a template whose example is 'California'): a value no
    value search covers is still the question's own value. The repetition replaces a reading it
    overlaps that is only approximate (see :func:`_displaceable`). True when any was added."""
    added = False
    for tpl in templates:
        for slot in tpl.slots:
            ex = slot.example
            if slot.kind != "text" or not isinstance(ex, str) or not slot.column:
                continue
            core = ex.strip("%")
            if not core.strip():
                continue
            m = _repeated(core, question) or _abbreviated(core, question, tpl.intent)
            if m is None:
                continue
            overlap = [e for e in entities if not (m.end() <= e.start or m.start() >= e.end)]
            if len(overlap) == 1 and _also_read_as(
                overlap[0], m, core, slot.column, question, tpl.parameterized_intent
            ):
                continue
            if not all(_displaceable(e, m.start(), m.end()) for e in overlap):
                continue
            for e in overlap:
                entities.remove(e)
            entities.append(Entity("stated", m.group(), m.start(), m.end(), core, column=slot.column))
            added = True
    if added:
        entities.sort(key=lambda e: e.start)
    return added
