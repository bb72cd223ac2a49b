"""Where ctxtool keeps its own files (published sets, conversations, the quickstart database)."""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """The user's ctxtool data directory: ``$CTXTOOL_HOME``, else ``$XDG_DATA_HOME/ctxtool``,
    else ``~/.local/share/ctxtool``. Created on first use."""
    if os.environ.get("CTXTOOL_HOME"):
        path = Path(os.environ["CTXTOOL_HOME"])
    elif os.environ.get("XDG_DATA_HOME"):
        path = Path(os.environ["XDG_DATA_HOME"]) / "ctxtool"
    else:
        path = Path.home() / ".local" / "share" / "ctxtool"
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_dir() -> Path:
    """Where ctxtool keeps what it can always compute again and shares between data directories
    (compiled sets, the sentence encoder's optimized graph): ``$CTXTOOL_CACHE``, else
    ``$XDG_CACHE_HOME/ctxtool``, else ``~/.cache/ctxtool``. Created on first use."""
    if os.environ.get("CTXTOOL_CACHE"):
        path = Path(os.environ["CTXTOOL_CACHE"])
    elif os.environ.get("XDG_CACHE_HOME"):
        path = Path(os.environ["XDG_CACHE_HOME"]) / "ctxtool"
    else:
        path = Path.home() / ".cache" / "ctxtool"
    path.mkdir(parents=True, exist_ok=True)
    return path
