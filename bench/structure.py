"""The shape of the code, counted: import cycles, function-local imports, private names imported
across modules, and word lists, per package of ``ctxtool/``.

    .venv/bin/python bench/structure.py                   # the summary
    .venv/bin/python bench/structure.py --list local      # every function-local import
    .venv/bin/python bench/structure.py --list cycles     # every cycle (module-level imports)
    .venv/bin/python bench/structure.py --list private    # every private name imported from elsewhere
    .venv/bin/python bench/structure.py --list words      # every word list and English-word regex

What is counted:

- a **cycle**: a strongly connected set of modules of ``ctxtool`` importing each other, counting
  module-level imports (``cycles``) and also function-local ones (``cycles with local imports``:
  a cycle a function-local import only hides is still one);
- a **function-local import**: an ``import`` inside a function or method (``TYPE_CHECKING`` blocks
  aside);
- a **private name imported across modules**: ``from a import _b`` where ``a`` is another module;
- a **word list**: a literal list, tuple, set, frozenset or dict key list of at least three strings
  that are English words (lower-case letters, ``"a b c".split()``, or a string of three words or more
  read as tokens: ``content_tokens("a b c")``), and an **English-word
  regex**: a ``re.compile`` whose pattern holds at least two alternatives of letters only
  (``\\bhow\\s+many\\b|...``). Counted in ``ctxtool/runtime`` (and ``ctxtool/lexicon.py`` apart).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ctxtool"


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(mod: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = mod.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


class Imports(ast.NodeVisitor):
    """The imports of one module: (target module, names, function-local?, line)."""

    def __init__(self, mod: str, is_package: bool, known: set[str]) -> None:
        self.mod, self.is_package, self.known = mod, is_package, known
        self.depth = 0
        self.type_checking = 0
        self.found: list[tuple[str, list[str], bool, int]] = []

    def _target(self, name: str) -> str | None:
        while name and name not in self.known:
            name = name.rpartition(".")[0]
        return name or None

    def visit_FunctionDef(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_If(self, node: ast.If) -> None:
        if isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            self.type_checking += 1
            for n in node.body:
                self.visit(n)
            self.type_checking -= 1
            for n in node.orelse:
                self.visit(n)
            return
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        if self.type_checking:
            return
        for alias in node.names:
            target = self._target(alias.name) if alias.name.startswith("ctxtool") else None
            self.found.append((target or alias.name, [], self.depth > 0, node.lineno))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if self.type_checking:
            return
        base = _resolve(self.mod, node, self.is_package)
        names = [a.name for a in node.names]
        if base.startswith("ctxtool"):
            # ``from ctxtool.runtime import sqlparts`` imports the module ctxtool.runtime.templates.sqlparts
            for name in names:
                sub = f"{base}.{name}"
                target = sub if sub in self.known else self._target(base)
                self.found.append((target or base, [name], self.depth > 0, node.lineno))
        else:
            self.found.append((base, names, self.depth > 0, node.lineno))


def collect() -> tuple[dict[str, Path], dict[str, list[tuple[str, list[str], bool, int]]]]:
    mods = modules()
    known = set(mods)
    out = {}
    for mod, path in mods.items():
        v = Imports(mod, path.name == "__init__.py", known)
        v.visit(ast.parse(path.read_text(), str(path)))
        out[mod] = v.found
    return mods, out


def _sccs(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            for nxt in it:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def _package_parents(mod: str) -> set[str]:
    """Importing ``a.b.c`` runs ``a.b/__init__``: a module's package inits are imported with it."""
    parts = mod.split(".")
    return {".".join(parts[:i]) for i in range(2, len(parts))}


def cycles(imports: dict[str, list[tuple[str, list[str], bool, int]]], local: bool) -> list[list[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for mod, found in imports.items():
        graph[mod]
        for target, _, is_local, _ in found:
            if target.startswith("ctxtool") and target != mod and (local or not is_local):
                graph[mod].add(target)
                graph[mod] |= _package_parents(target) - {mod} - _package_parents(mod)
    return _sccs(graph)


def private_imports(imports: dict[str, list[tuple[str, list[str], bool, int]]]) -> list[str]:
    out = []
    for mod, found in imports.items():
        for target, names, _, line in found:
            for n in names:
                if n.startswith("_") and not n.startswith("__") and target != mod:
                    out.append(f"{mod}:{line} imports {n} from {target}")
    return out


def local_imports(imports: dict[str, list[tuple[str, list[str], bool, int]]]) -> list[str]:
    """One line per function-local import statement (its targets together)."""
    by_statement: dict[tuple[str, int], list[str]] = defaultdict(list)
    for mod, found in imports.items():
        for target, names, is_local, line in found:
            if is_local:
                by_statement[(mod, line)].append(target + (f" ({', '.join(names)})" if names else ""))
    return [f"{mod}:{line} " + "; ".join(t) for (mod, line), t in sorted(by_statement.items())]


_WORD = re.compile(r"[a-z][a-z'-]*$")
_ALTERNATIVES = re.compile(r"(?<![\\\[])\b[a-z]{2,}\b")


def _strings(node: ast.AST) -> list[str] | None:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        vals = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return vals if len(vals) == len(node.elts) else None
    if isinstance(node, ast.Dict):
        vals = [k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
        return vals if len(vals) == len(node.keys) else None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "split"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
    ):
        return node.func.value.value.split()
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("frozenset", "set")
    ):
        if node.args:
            return _strings(node.args[0])
    # the words of a string read as tokens: content_tokens("number numbers code codes")
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and "tokens" in node.func.id
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value.split()
    return None


def word_lists(path: Path) -> tuple[list[tuple[int, int]], list[int]]:
    """(line, words) of each word list and the lines of each English-word regex of a module."""
    tree = ast.parse(path.read_text())
    lists: list[tuple[int, int]] = []
    regexes: list[int] = []
    seen: set[int] = set()
    for node in ast.walk(tree):
        vals = _strings(node)
        if vals is not None and id(node) not in seen:
            words = [v for v in vals if all(_WORD.match(w) for w in v.split())]
            if len(words) >= 3 and len(words) >= 0.8 * len(vals):
                lists.append((node.lineno, len(words)))
                for child in ast.walk(node):
                    seen.add(id(child))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "compile"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.args
        ):
            pattern = "".join(
                p.value
                for p in ast.walk(node.args[0])
                if isinstance(p, ast.Constant) and isinstance(p.value, str)
            )
            if len(_ALTERNATIVES.findall(pattern)) >= 2:
                regexes.append(node.lineno)
    return lists, regexes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", choices=["local", "cycles", "private", "words"])
    ap.add_argument("--under", default="ctxtool/runtime", help="the folder word lists are counted in")
    args = ap.parse_args(argv)
    mods, imports = collect()
    loc = local_imports(imports)
    cyc = cycles(imports, local=False)
    cyc_local = cycles(imports, local=True)
    priv = private_imports(imports)
    runtime = [m for m in mods if m.startswith("ctxtool.runtime")]
    rt_local = [x for x in loc if x.startswith("ctxtool.runtime")]
    rt_cycles = [c for c in cyc_local if any(m.startswith("ctxtool.runtime") for m in c)]
    under = ROOT / args.under
    words: list[tuple[str, int, int]] = []
    regexes: list[tuple[str, int]] = []
    for path in sorted(under.rglob("*.py")):
        lists, rx = word_lists(path)
        words += [(module_name(path), line, n) for line, n in lists]
        regexes += [(module_name(path), line) for line in rx]
    if args.list == "local":
        print("\n".join(loc))
    elif args.list == "cycles":
        for c in cyc_local:
            print(("module-level: " if c in cyc else "with local imports: ") + " <-> ".join(c))
    elif args.list == "private":
        print("\n".join(priv))
    elif args.list == "words":
        for mod, line, n in words:
            print(f"{mod}:{line} a list of {n} words")
        for mod, line in regexes:
            print(f"{mod}:{line} an English-word regex")
    files = {x.split(":")[0] for x in loc}
    print(
        f"ctxtool: {len(mods)} modules; {len(loc)} function-local imports in {len(files)} modules; "
        f"{len(cyc)} import cycles ({len(cyc_local)} counting function-local imports); "
        f"{len(priv)} private names imported across modules"
    )
    print(
        f"ctxtool.runtime: {len(runtime)} modules; {len(rt_local)} function-local imports; "
        f"{len(rt_cycles)} cycles touching it (function-local imports counted); "
        f"{sum(1 for c in cyc_local if any(m.startswith('ctxtool.conversations') for m in c) and any(m.startswith('ctxtool.runtime') for m in c))} "
        "between runtime and conversations"
    )
    print(
        f"{args.under}: {len(words)} word lists ({sum(n for *_, n in words)} words) and {len(regexes)} "
        f"English-word regexes in {len({m for m, *_ in words} | {m for m, _ in regexes})} modules"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
