"""`ctxtool conversation ...`: named conversations and their prompts, current conversation, purge,
and chat vectors (stats, vectorize-all, purge)."""

from __future__ import annotations

import json
import os

import click

from ctxtool.cli._model_opts import VECTOR_KEY, take, vector_options

_store_option = click.option(
    "--store",
    default=None,
    help="PostgreSQL DSN or SQLite file (default: $CTXTOOL_CONVERSATIONS_DSN or the data directory).",
)
_format_option = click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
# the reference calls it conversation_length: both spellings of it are accepted beside --length
_length_option = click.option(
    "--length",
    "--conversation-length",
    "--conversation_length",
    "conversation_length",
    type=int,
    default=None,
    help="Prompts sent as history (default 10).",
)
_session_option = click.option(
    "--session",
    "session_key",
    default=None,
    help="Session whose current conversation to use (default: $CTXTOOL_SESSION or 'cli').",
)


def _vector_settings(flags: dict) -> dict:
    """The --vector-* flags given, checked (a bad combination fails before anything is stored)."""
    from ctxtool.conversations.vectors import VectorSettings

    own = take(flags, VECTOR_KEY)
    VectorSettings().merged(own, source="vector flags")
    return own


def session_key_default(value: str | None) -> str:
    return value or os.environ.get("CTXTOOL_SESSION") or "cli"


def _open(store: str | None):
    from ctxtool.conversations.store import open_store

    return open_store(store)


def _echo_json(data: object) -> None:
    click.echo(json.dumps(data, indent=2, default=str, ensure_ascii=False))


@click.group("conversation")
def command() -> None:
    """Create, list, show, update and drop named conversations; pick the current one; purge."""


@command.command("create")
@click.option("--title", default=None, help='Title (default "New Conversation").')
@click.option("--description", default=None)
@click.option(
    "--retention-days", type=int, default=None, help="Days to keep it from creation (default 7; 0 keeps)."
)
@_length_option
@click.option("--use", "use_it", is_flag=True, help="Also make it the current conversation of this session.")
@_session_option
@_store_option
@_format_option
@vector_options
def create_cmd(
    title, description, retention_days, conversation_length, use_it, session_key, store, fmt, **vectors
) -> None:
    """Create a conversation and print its id. The --vector-* flags are stored with it: its chat
    vectorization uses them whatever the command that asks in it."""
    own = _vector_settings(vectors)
    with _open(store) as st:
        conv = st.create_conversation(title, description, retention_days, conversation_length)
        if own:
            st.set_settings(conv.conversation_id, {"vectors": own})
        if use_it:
            st.set_current(session_key_default(session_key), conv.conversation_id)
    if fmt == "json":
        _echo_json({**conv.to_dict(), "settings": {"vectors": own} if own else {}})
    else:
        click.echo(conv.conversation_id)


@command.command("list")
@_store_option
@_format_option
def list_cmd(store, fmt) -> None:
    """Every conversation (the conversations view, with prompt counts)."""
    with _open(store) as st:
        convs = st.list_conversations()
    if fmt == "json":
        _echo_json([c.to_dict() for c in convs])
        return
    if not convs:
        click.echo("no conversations; run `ctxtool conversation create --title TITLE`")
    for c in convs:
        keep = "kept" if c.retention_days == 0 else f"{c.retention_days}d"
        click.echo(
            f"{c.conversation_id}  {c.title}  [{c.prompt_count} prompts, length {c.conversation_length}, {keep}]"
        )


@command.command("show")
@click.argument("conversation_id", required=False)
@_session_option
@_store_option
@_format_option
def show_cmd(conversation_id, session_key, store, fmt) -> None:
    """A conversation and its prompts (the prompts view); default: the current conversation."""
    from ctxtool.errors import InputError

    with _open(store) as st:
        conversation_id = conversation_id or st.get_current(session_key_default(session_key))
        if not conversation_id:
            raise InputError(
                "no conversation given and none is current: pass an id or run `ctxtool conversation use ID`"
            )
        conv = st.get_conversation(conversation_id)
        prompts = st.prompts_view(conversation_id)
        settings = st.get_settings(conversation_id)
    if fmt == "json":
        _echo_json({"conversation": conv.to_dict(), "settings": settings, "prompts": prompts})
        return
    click.echo(f"{conv.conversation_id}  {conv.title}")
    if settings.get("vectors"):
        click.echo("  vectors: " + ", ".join(f"{k}={v!r}" for k, v in sorted(settings["vectors"].items())))
    if conv.description:
        click.echo(f"  {conv.description}")
    expires = conv.expires.isoformat() if conv.expires else "never"
    click.echo(
        f"  length {conv.conversation_length}, retention {conv.retention_days} days, expires {expires}"
    )
    for p in prompts:
        click.echo(
            f"[{p['conversation_prompt_id']}] {p['created']} {p['prompt_action']} ({p['profile_name'] or '-'})"
        )
        click.echo(f"  > {p['prompt']}")
        for line in (p["prompt_response"] or "").splitlines():
            click.echo(f"    {line}")


@command.command("update")
@click.argument("conversation_id")
@click.option("--title", default=None)
@click.option("--description", default=None)
@click.option("--retention-days", type=int, default=None)
@_length_option
@click.option("--reset-vectors", is_flag=True, help="Forget the conversation's own vector settings first.")
@_store_option
@_format_option
@vector_options
def update_cmd(
    conversation_id,
    title,
    description,
    retention_days,
    conversation_length,
    reset_vectors,
    store,
    fmt,
    **vectors,
) -> None:
    """Change a conversation's title, description, retention, length or its own --vector-* settings."""
    own = _vector_settings(vectors)
    with _open(store) as st:
        conv = st.update_conversation(
            conversation_id,
            title=title,
            description=description,
            retention_days=retention_days,
            conversation_length=conversation_length,
        )
        settings = st.get_settings(conversation_id)
        if own or reset_vectors:
            merged = {**({} if reset_vectors else settings.get("vectors") or {}), **own}
            settings = (
                {**settings, "vectors": merged}
                if merged
                else {k: v for k, v in settings.items() if k != "vectors"}
            )
            st.set_settings(conversation_id, settings)
    if fmt == "json":
        _echo_json({**conv.to_dict(), "settings": settings})
    else:
        click.echo(f"updated {conv.conversation_id}")


@command.command("drop")
@click.argument("conversation_id")
@click.option("--force", is_flag=True, help="Drop even if it holds prompts; no error if it does not exist.")
@_store_option
def drop_cmd(conversation_id, force, store) -> None:
    """Drop a conversation with its prompts and vectors."""
    with _open(store) as st:
        dropped = st.drop_conversation(conversation_id, force=force)
    click.echo(
        f"dropped {conversation_id}" if dropped else f"no conversation {conversation_id}; nothing dropped"
    )


@command.command("delete-prompt")
@click.argument("prompt_id", type=int)
@_store_option
def delete_prompt_cmd(prompt_id, store) -> None:
    """Delete one prompt (and the vectors of its chunks) by its conversation_prompt_id."""
    with _open(store) as st:
        st.delete_prompt(prompt_id)
    click.echo(f"deleted prompt {prompt_id}")


@command.command("use")
@click.argument("conversation_id", required=False)
@click.option("--clear", is_flag=True, help="Stop using a conversation in this session.")
@_session_option
@_store_option
def use_cmd(conversation_id, clear, session_key, store) -> None:
    """Set, show (no argument) or clear the current conversation of this session."""
    key = session_key_default(session_key)
    with _open(store) as st:
        if clear:
            st.clear_current(key)
            click.echo(f"session {key}: no current conversation")
        elif conversation_id:
            st.set_current(key, conversation_id)
            click.echo(f"session {key}: using {conversation_id}")
        else:
            current = st.get_current(key)
            click.echo(current or f"session {key}: no current conversation")


@command.command("purge")
@_store_option
@_format_option
def purge_cmd(store, fmt) -> None:
    """Delete every conversation whose retention has run out."""
    from ctxtool.conversations.store import open_store

    with open_store(store, auto_purge=False) as st:
        ids = st.purge_expired()
    if fmt == "json":
        _echo_json({"purged": ids})
    else:
        click.echo(f"purged {len(ids)} expired conversation(s)")
        for cid in ids:
            click.echo(f"  {cid}")


@command.group("vectors")
def vectors_group() -> None:
    """Chat vectorization: stats, vectorize-all, purge (vectors only, never messages)."""


@vectors_group.command("stats")
@click.argument("conversation_id", required=False)
@_store_option
@_format_option
def vectors_stats_cmd(conversation_id, store, fmt) -> None:
    """How many vectors and which prompts have them (one conversation, or all)."""
    with _open(store) as st:
        if conversation_id:
            st.get_conversation(conversation_id)
        stats = st.vector_stats(conversation_id)
    if fmt == "json":
        _echo_json(stats)
        return
    click.echo(
        f"{stats['vectors']} vectors for {stats['vectorized_prompts']} of {stats['prompts']} prompts"
        + (f" ({', '.join(stats['embedders'])})" if stats["embedders"] else "")
    )
    if stats["vectorized_prompt_ids"]:
        click.echo("vectorized prompt ids: " + ", ".join(str(i) for i in stats["vectorized_prompt_ids"]))


@vectors_group.command("vectorize-all")
@click.argument("conversation_id")
@click.option(
    "--embedder", default=None, help="hash, hash:DIM, openai:MODEL or local (default $CTXTOOL_EMBEDDER)."
)
@click.option("--chunk-size", type=int, default=400, show_default=True)
@click.option("--chunk-boundary", default=None, help="An extra split marker, e.g. '----'.")
@_store_option
def vectorize_all_cmd(conversation_id, embedder, chunk_size, chunk_boundary, store) -> None:
    """Vectorize every prompt of a conversation that has no vectors yet."""
    from ctxtool.conversations.vectors import VectorSettings, vectorize_all
    from ctxtool.embeddings import get_embedder

    emb = get_embedder(embedder)
    with _open(store) as st:
        n = vectorize_all(
            st, conversation_id, emb, VectorSettings(chunk_size=chunk_size, chunk_boundary=chunk_boundary)
        )
    click.echo(f"stored {n} vector(s) with {emb.name}")


@vectors_group.command("purge")
@click.argument("conversation_id", required=False)
@click.option("--all", "all_", is_flag=True, help="Purge the vectors of every conversation.")
@_store_option
def vectors_purge_cmd(conversation_id, all_, store) -> None:
    """Delete the vectors of a conversation (messages are kept)."""
    from ctxtool.errors import InputError

    if not conversation_id and not all_:
        raise InputError("name a conversation id, or pass --all to purge every conversation's vectors")
    with _open(store) as st:
        n = st.purge_vectors(None if all_ else conversation_id)
    click.echo(f"purged {n} vector(s); messages kept")


def conversation_options(func):
    """``--conversation ID`` and ``--conversation-store`` for commands that ask questions."""
    func = click.option(
        "--conversation-store",
        "conversation_store",
        default=None,
        help="Where conversations live (PostgreSQL DSN or SQLite file; default $CTXTOOL_CONVERSATIONS_DSN "
        "or the data directory).",
    )(func)
    return click.option(
        "--conversation",
        "conversation_id",
        default=None,
        metavar="ID|current",
        help="Ask within a named conversation (its history resolves follow-ups; the prompt is stored). "
        "'current' uses the conversation set with `ctxtool conversation use`.",
    )(func)


def ask_in_conversation(runtime, question: str, action: str, conversation_id: str, store_dsn: str | None):
    """Answer ``question`` within a named conversation and store the turn."""
    from ctxtool.conversations.runner import ConversationRunner
    from ctxtool.conversations.store import open_store
    from ctxtool.errors import InputError

    with open_store(store_dsn) as st:
        if conversation_id == "current":
            key = session_key_default(None)
            conversation_id = st.get_current(key)
            if not conversation_id:
                raise InputError(
                    f"session {key} has no current conversation: run `ctxtool conversation use ID` "
                    "or `ctxtool conversation create --use`"
                )
        profile = getattr(runtime, "ref", None)  # the set (NAME@VERSION or file) the prompt was asked of
        runner = ConversationRunner(runtime, store=st, profile=profile, client_identifier="ctxtool ask")
        return runner.ask(question, action, conversation_id=conversation_id)
