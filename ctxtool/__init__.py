"""ctxtool: author, check and serve NL-to-SQL context sets."""

import sys

__version__ = "0.1.0"

# Checked here, before any module with newer syntax is imported, so an old Python gets one line
# instead of a traceback. Kept to syntax that every Python parses (no f-strings).
if sys.version_info < (3, 10):  # noqa: UP036 - this check is for the Pythons requires-python excludes
    raise SystemExit(
        "ctxtool needs Python 3.10 or newer (this is Python "
        + ".".join(str(n) for n in sys.version_info[:2])
        + "): create the virtual environment with a newer python3, e.g. `python3.12 -m venv .venv`"
    )
