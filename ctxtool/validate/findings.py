"""A finding: one problem in one context-set file, at the JSON node that holds it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

ERROR = "error"
WARNING = "warning"
SEVERITIES = (ERROR, WARNING)


@dataclass(frozen=True)
class Finding:
    """What is wrong (``code`` from the rule catalogue, ``message``), how bad (``severity``) and
    where: the file, the 1-based ``line``/``column`` of the JSON node and its JSON ``pointer``."""

    code: str
    severity: str
    message: str
    path: str
    line: int
    column: int
    pointer: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def location(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


def sort_key(finding: Finding) -> tuple[str, int, int, str]:
    return (finding.path, finding.line, finding.column, finding.code)
