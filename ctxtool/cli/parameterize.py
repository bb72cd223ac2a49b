"""``ctxtool parameterize``: fill intent, manifest and parameterized forms, like a formatter.

Reads a context set, completes every template and facet that lacks its derived fields (all of them with
``--force``) and writes the result (stdout, ``-o``, or ``--in-place``). ``--check`` exits 1 when the
file would change; ``--diff`` prints a unified diff. A complete file is left byte for byte as it is.
"""

from __future__ import annotations

import difflib
import json

import click

from ctxtool import console
from ctxtool.contextset import load
from ctxtool.errors import EXIT_FINDINGS, InputError
from ctxtool.jsondoc import load_json, write_text_atomic
from ctxtool.parameterize import parameterize_contextset


def _load_snapshot(path: str) -> dict:
    try:
        from ctxtool.snapshot import load as load_snapshot  # the connectors helper's loader
    except ImportError:
        load_snapshot = None
    if load_snapshot is not None:
        return load_snapshot(path)
    data = load_json(path).data
    if not isinstance(data, dict) or "schemas" not in data:
        raise InputError(f'{path}: not a schema snapshot (no "schemas"); make one with `ctxtool introspect`')
    return data


@click.command("parameterize")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option(
    "-o",
    "--output",
    "output",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Write the result here ('-' for stdout).",
)
@click.option("--in-place", is_flag=True, help="Rewrite FILE (atomically).")
@click.option(
    "--dialect",
    help="postgres (alloydb), mysql or spanner; default: the snapshot's dialect, else postgres (as validate).",
)
@click.option(
    "--snapshot",
    "snapshot_path",
    type=click.Path(dir_okay=False, exists=True),
    help="A schema snapshot (ctxtool introspect) for better manifest types.",
)
@click.option("--force", is_flag=True, help="Recompute every template and facet, not only incomplete ones.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when the file would change.")
@click.option("--diff", "show_diff", is_flag=True, help="Write nothing; print a unified diff of the changes.")
@click.option("-v", "--verbose", is_flag=True, help="Show each item's parameters and the literals kept.")
def command(
    file: str,
    output: str | None,
    in_place: bool,
    dialect: str | None,
    snapshot_path: str | None,
    force: bool,
    check: bool,
    show_diff: bool,
    verbose: bool,
) -> None:
    """Fill intent, manifest and parameterized intent/SQL of templates and facets in FILE.

    Values of the SQL that the intent mentions become placeholders ($1..$n on postgres, ? on mysql and
    spanner); values it does not mention stay literal. Items whose forms cannot be derived exactly are
    left unchanged and reported (exit 1).
    """
    if in_place and output:
        raise click.UsageError("use either -o/--output or --in-place, not both")
    if in_place and file == "-":
        raise click.UsageError("--in-place needs a file, not standard input")
    cs = load(file)
    snapshot = _load_snapshot(snapshot_path) if snapshot_path else None
    if not dialect:
        dialect = (snapshot or {}).get("dialect") or "postgres"  # the default validate has too
    _, report, changed_text = parameterize_contextset(cs, dialect, snapshot, force=force)
    changed = changed_text is not None
    new_text = changed_text if changed else cs.doc.text

    legacy = isinstance(cs.doc.data, dict) and "fragments" in cs.doc.data and "facets" not in cs.doc.data
    problems = 0
    for entry in report:
        ptr = entry.pointer.replace("/facets/", "/fragments/", 1) if legacy else entry.pointer
        line, col = cs.position(ptr)
        where = f"{cs.path}:{line}:{col}: {entry.pointer}"
        for msg in entry.problems:
            problems += 1
            console.warn(f"{where}: {msg}")
        if verbose:
            if entry.status != "problem":
                console.info(f"{where}: {entry.status}")
            for p in entry.params:
                console.info(
                    f"  {p['placeholder']} = {p['value']!r} (a given {p['type']}; intent {json.dumps(p['intent_texts'], ensure_ascii=False)}, SQL {json.dumps(p['sql_texts'], ensure_ascii=False)})"
                )
            for lit in entry.literals:
                console.info(f"  {lit}")

    if show_diff and changed:
        name = cs.path
        diff = difflib.unified_diff(
            cs.doc.text.splitlines(keepends=True),
            new_text.splitlines(keepends=True),
            fromfile=name,
            tofile=f"{name} (parameterized)",
        )
        click.echo("".join(diff), nl=False)
    if check or show_diff:
        if changed:
            filled = sum(1 for e in report if e.status == "filled")
            console.info(
                f"{cs.path}: would change ({filled} item(s) to fill); "
                f"run `ctxtool parameterize --in-place {cs.path}`"
            )
        if problems or (check and changed):
            click.get_current_context().exit(EXIT_FINDINGS)
        return
    if in_place:
        if changed:
            write_text_atomic(file, new_text)
    elif output and output != "-":
        write_text_atomic(output, new_text)
    else:
        click.echo(new_text, nl=False)
    if problems:
        click.get_current_context().exit(EXIT_FINDINGS)
