"""`ctxtool chat --set NAME | --context FILE --dsn DSN [--conversation ID]`: an interactive shell.

Each line is a question answered in the conversation (follow-ups such as "by region" or "what about
Brno?" refine the previous answer). Without ``--conversation`` the shell keeps a session memory of
the last 10 prompts (never stored); ``/new`` starts a stored, named conversation. Slash commands:
/help /new [TITLE] /use ID /list /show /sql /action ACTION /session /delete PROMPT_ID /vectors /quit.
"""

from __future__ import annotations

import json
import os
import sys

import click

from ctxtool.cli._runtime_opts import make_runtime, runtime_options
from ctxtool.cli.conversation import conversation_options, session_key_default
from ctxtool.errors import CtxtoolError

HELP = """commands:
  /new [TITLE]        start a new stored conversation and use it
  /use ID             switch to a stored conversation
  /list               list stored conversations
  /show               the prompts of the current conversation
  /sql                the SQL (and parameters) of the last answer
  /action ACTION      runsql, showsql, explainsql, narrate or chat
  /session            leave the stored conversation; keep a session memory only
  /delete PROMPT_ID   delete one prompt of the stored conversation
  /vectors            chat-vector stats of the current conversation
  /quit               leave (also /exit or end of input)"""


def _enable_line_history() -> None:
    """Arrow-key line editing and in-memory line history when a terminal is attached. Nothing is
    written to disk: a session conversation must leave no trace when the shell ends."""
    try:
        import readline
    except ImportError:  # pragma: no cover - Windows without pyreadline
        return
    readline.set_history_length(1000)


@click.command("chat")
@runtime_options
@conversation_options
@click.option(
    "--action",
    type=click.Choice(["runsql", "showsql", "explainsql", "narrate", "chat"]),
    default="runsql",
    show_default=True,
)
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
def command(
    action: str, fmt: str, conversation_id: str | None, conversation_store: str | None, **opts
) -> None:
    """Ask questions one after another; follow-ups build on the previous answers."""
    from ctxtool.cli.ask import render
    from ctxtool.conversations.runner import ConversationRunner
    from ctxtool.conversations.store import open_store

    stdin = sys.stdin  # read through one object: a second wrapper would lose buffered lines
    interactive = stdin.isatty()
    if interactive:
        _enable_line_history()
    session_key = f"chat-{os.getpid()}"
    with (
        make_runtime(**opts, need_dsn=action not in ("showsql", "explainsql", "chat")) as rt,
        open_store(conversation_store) as store,
    ):
        if conversation_id == "current":
            conversation_id = store.get_current(session_key_default(None))
            if not conversation_id:
                raise CtxtoolError("no current conversation: run `ctxtool conversation use ID` first")
        if conversation_id:
            store.get_conversation(conversation_id)
            store.set_current(session_key, conversation_id)
        runner = ConversationRunner(
            rt,
            store=store,
            profile=opts.get("set_ref") or opts.get("context_file"),
            session_conversation=True,
            session_key=session_key,
            client_identifier="ctxtool chat",
        )
        last = None
        where = f"conversation {conversation_id}" if conversation_id else "session memory (not stored)"
        click.echo(f"ctxtool chat: {where}. /help for commands, /quit to leave.", err=True)
        while True:
            try:
                line = input("ctx> ") if interactive else _read_line(stdin)
            except EOFError:
                break
            except KeyboardInterrupt:
                click.echo("", err=True)
                continue
            except UnicodeDecodeError as exc:  # the terminal's bytes
                click.echo(f"error: {_not_utf8(exc)}", err=True)
                continue
            if line is None:
                break
            line = line.strip()
            if not line:
                continue
            if line.startswith("/"):
                try:
                    done, action, last = _slash(line, runner, store, session_key, action, last, fmt)
                except CtxtoolError as exc:
                    click.echo(f"error: {exc}", err=True)
                    continue
                if done:
                    break
                continue
            try:
                last = runner.ask(line, action)
            except CtxtoolError as exc:
                click.echo(f"error: {exc}", err=True)
                continue
            render(last, fmt)
        store.clear_current(session_key)


def _read_line(stream) -> str | None:
    """The next line of piped input (None at its end); its bytes are decoded here, strictly, so a
    line that is not UTF-8 is an error of its own and the next line is read."""
    raw = getattr(stream, "buffer", None)
    if raw is None:
        line = stream.readline()
        return None if line == "" else line
    data = raw.readline()
    if not data:
        return None
    return data.decode("utf-8")


def _not_utf8(exc: UnicodeDecodeError) -> str:
    return f"the line is not UTF-8 text (byte {exc.start + 1}); check the terminal's or the file's encoding"


def _slash(line: str, runner, store, session_key: str, action: str, last, fmt: str):
    """Run one slash command; returns (quit?, action, last answer)."""
    cmd, _, arg = line[1:].partition(" ")
    cmd, arg = cmd.lower(), arg.strip()
    if cmd in ("quit", "exit", "q"):
        return True, action, last
    if cmd in ("help", "h", "?"):
        click.echo(HELP)
    elif cmd == "new":
        conv = store.create_conversation(arg or None)
        store.set_current(session_key, conv.conversation_id)
        click.echo(f"using new conversation {conv.conversation_id} ({conv.title})")
    elif cmd == "use":
        if not arg:
            raise CtxtoolError("usage: /use CONVERSATION_ID (see /list)")
        store.set_current(session_key, arg)
        click.echo(f"using conversation {arg}")
    elif cmd == "session":
        store.clear_current(session_key)
        click.echo("session memory only (the last 10 prompts, not stored)")
    elif cmd == "list":
        current = store.get_current(session_key)
        for c in store.list_conversations():
            mark = "*" if c.conversation_id == current else " "
            click.echo(f"{mark} {c.conversation_id}  {c.title}  ({c.prompt_count} prompts)")
    elif cmd in ("show", "history"):
        current = store.get_current(session_key)
        turns = store.list_prompts(current) if current else runner.memory.history(runner.profile)
        if not turns:
            click.echo("no prompts yet")
        for t in turns:
            pid = f"[{t.prompt_id}] " if t.prompt_id is not None else ""
            click.echo(f"{pid}> {t.prompt}")
            if t.response_text:
                click.echo("    " + t.response_text.replace("\n", "\n    "))
    elif cmd == "sql":
        if last is None or not last.sql:
            click.echo("no SQL yet")
        else:
            click.echo(last.sql)
            if last.params:
                click.echo(f"-- parameters: {json.dumps(last.params, default=str, ensure_ascii=False)}")
    elif cmd == "action":
        choices = ("runsql", "showsql", "explainsql", "narrate", "chat")
        if arg not in choices:
            raise CtxtoolError(f"usage: /action {'|'.join(choices)}")
        action = arg
        click.echo(f"action: {action}")
    elif cmd == "delete":
        if not arg.isdigit():
            raise CtxtoolError("usage: /delete PROMPT_ID (see /show)")
        store.delete_prompt(int(arg))
        click.echo(f"deleted prompt {arg}")
    elif cmd == "vectors":
        current = store.get_current(session_key)
        if not current:
            raise CtxtoolError("no stored conversation in use: /new or /use ID first")
        stats = store.vector_stats(current)
        click.echo(
            f"{stats['vectors']} vectors for {stats['vectorized_prompts']} of {stats['prompts']} prompts"
        )
    else:
        raise CtxtoolError(f"unknown command /{cmd}: /help lists them")
    return False, action, last
