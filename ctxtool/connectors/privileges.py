"""What the connecting role may do beyond reading: least privilege, said and checked.

ctxtool only reads, and every statement runs read-only (see the connectors), but a role that can
write, read or write the server's files, or run programs on the server turns any gap in those
defences into damage. :func:`check_privileges` asks the server what the DSN's role may do, with a
fixed number of catalog queries of ctxtool's own (one on PostgreSQL, a few ``SHOW GRANTS`` on MySQL),
and returns a :class:`PrivilegeReport`: ``ok`` when the role can only read. ``ctxtool doctor`` prints
it; ``ask``, ``serve`` and ``mcp`` print its one-line summary on stderr at start
(:func:`startup_warning`, once per DSN and process; ``CTXTOOL_NO_PRIVILEGE_WARNING=1`` silences it).
docs/serving.md shows the read-only role to create on each engine.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import asdict, dataclass, field
from typing import Any

from ctxtool.connectors.base import Connector
from ctxtool.connectors.dsn import DSN, parse

SILENCE_ENV = "CTXTOOL_NO_PRIVILEGE_WARNING"

# Finding codes (stable: JSON consumers and docs/serving.md name them)
SUPERUSER = "superuser"  # PostgreSQL superuser, MySQL SUPER or ALL PRIVILEGES
CAN_WRITE = "can-write"  # any INSERT/UPDATE/DELETE/TRUNCATE/CREATE (or other non-read) privilege
SERVER_FILES = "server-files"  # pg_read_server_files / pg_write_server_files, MySQL FILE
SERVER_PROGRAM = "server-program"  # pg_execute_server_program
CAN_GRANT = "can-grant"  # may create roles or grant privileges on
UNCHECKED = "unchecked"  # the engine cannot tell (the Spanner emulator, missing IAM rights)

_PG_ROLES = {
    "pg_read_server_files": SERVER_FILES,
    "pg_write_server_files": SERVER_FILES,
    "pg_execute_server_program": SERVER_PROGRAM,
    "pg_write_all_data": CAN_WRITE,
}
_PG_USER_SCHEMAS = "n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'"
_PG_SQL = (
    "SELECT current_user::text, r.rolsuper, r.rolcreaterole, "
    "ARRAY(SELECT g.rolname::text FROM pg_roles g WHERE g.rolname = ANY($1::text[]) "
    "  AND pg_has_role(current_user, g.oid, 'MEMBER') ORDER BY 1), "
    "ARRAY(SELECT n.nspname::text FROM pg_namespace n WHERE " + _PG_USER_SCHEMAS + " "
    "  AND has_schema_privilege(current_user, n.oid, 'CREATE') ORDER BY 1), "
    "ARRAY(SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c "
    "  JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p', 'v', 'f') "
    "  AND " + _PG_USER_SCHEMAS + " "
    "  AND has_table_privilege(current_user, c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE') "
    "  LIMIT 6), "
    "has_database_privilege(current_database(), 'CREATE') "
    "FROM pg_roles r WHERE r.rolname = current_user"
)
# MySQL/MariaDB privileges that only read (USAGE is "no privilege")
_MYSQL_READ = {"SELECT", "SHOW VIEW", "USAGE", "SHOW DATABASES"}
_GRANT_LINE = re.compile(r"^GRANT\s+(?P<privs>.+?)\s+ON\s+(?P<object>.+?)\s+TO\s+", re.IGNORECASE | re.DOTALL)
_ROLE_LINE = re.compile(r"^GRANT\s+(?P<roles>.+?)\s+TO\s+", re.IGNORECASE | re.DOTALL)
# Spanner IAM permissions that write data or schema
_SPANNER_WRITE = (
    "spanner.databases.write",
    "spanner.databases.beginOrRollbackReadWriteTransaction",
    "spanner.databases.updateDdl",
)


@dataclass
class Finding:
    code: str  # one of the codes above
    detail: str  # what the server said, in a few words


@dataclass
class PrivilegeReport:
    engine: str
    role: str
    checked: bool = True  # False: the engine could not tell (see the UNCHECKED finding)
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """The role can only read (as far as the server says)."""
        return self.checked and not self.findings

    def summary(self) -> str:
        """One line, for the start-up warning and the last line of ``doctor``."""
        if self.ok:
            return f"the {self.engine} role {self.role} can only read"
        if not self.checked:
            return f"cannot check what the {self.engine} role {self.role} may do: {self.findings[0].detail}"
        codes = ", ".join(dict.fromkeys(f.code for f in self.findings))
        return (
            f"the {self.engine} role {self.role} can do more than read ({codes}); connect as a "
            "read-only role (docs/serving.md, 'A read-only role')"
        )

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "summary": self.summary(), **asdict(self)}


def check_privileges(connector: Connector) -> PrivilegeReport:
    """What the connector's role may do beyond reading, as its server says. A pool
    (:class:`~ctxtool.connectors.pool.PooledConnector`) lends one of its sessions for it."""
    lease = getattr(connector, "session", None)
    if lease is not None:
        with lease() as session:
            return check_privileges(session)
    if connector.engine == "postgres":
        return _postgres(connector)
    if connector.engine == "mysql":
        return _mysql(connector)
    return _spanner(connector)


def _postgres(connector: Any) -> PrivilegeReport:
    # fixed catalog SQL of ctxtool's own, below the SQL gate (as introspection)
    _, rows = connector.run_read_only(_PG_SQL, [list(_PG_ROLES)], "reading the role's privileges failed")
    role, superuser, createrole, member_of, create_schemas, writable, create_db = rows[0]
    report = PrivilegeReport("postgres", role)
    add = report.findings.append
    if superuser:  # everything below follows
        add(Finding(SUPERUSER, "is a superuser: it can write anything, read files, run programs"))
        return report
    for name in member_of:
        add(Finding(_PG_ROLES[name], f"member of {name}"))
    if createrole:
        add(Finding(CAN_GRANT, "may create roles (CREATEROLE)"))
    if writable:
        more = ", ..." if len(writable) > 5 else ""
        add(Finding(CAN_WRITE, f"may INSERT/UPDATE/DELETE/TRUNCATE {', '.join(writable[:5])}{more}"))
    if create_schemas:
        add(Finding(CAN_WRITE, f"may CREATE in schema {', '.join(create_schemas)}"))
    if create_db:
        add(Finding(CAN_WRITE, "may CREATE schemas in the database"))
    return report


def _mysql(connector: Any) -> PrivilegeReport:
    grants = _show_grants(connector, "SHOW GRANTS")
    user = connector.run_read_only("SELECT CURRENT_USER()", (), 1).rows[0][0]
    privileges: list[tuple[str, str]] = []  # (privilege, object)
    seen_roles: set[str] = set()
    pending = list(grants)
    while pending:
        line = pending.pop(0)
        m = _GRANT_LINE.match(line)
        if m:
            for priv in _split_privileges(m.group("privs")):
                privileges.append((priv, m.group("object").strip()))
            if re.search(r"\bWITH\s+GRANT\s+OPTION\b", line, re.IGNORECASE):
                privileges.append(("GRANT OPTION", m.group("object").strip()))
            continue
        m = _ROLE_LINE.match(line)
        if m and not line.upper().startswith("GRANT PROXY"):
            for role in (r.strip() for r in m.group("roles").split(",")):
                if role and role not in seen_roles:
                    seen_roles.add(role)
                    pending.extend(_show_grants(connector, f"SHOW GRANTS FOR {role}"))
    report = PrivilegeReport("mysql", str(user))
    add = report.findings.append
    writes: list[str] = []
    for priv, obj in privileges:
        upper = priv.upper()
        if upper in ("ALL", "ALL PRIVILEGES") and obj.replace("`", "") == "*.*":
            add(Finding(SUPERUSER, "ALL PRIVILEGES on *.*: every write, FILE and SUPER"))
        elif upper in ("ALL", "ALL PRIVILEGES"):
            writes.append(f"ALL PRIVILEGES on {obj}")
        elif upper == "SUPER":
            add(Finding(SUPERUSER, "SUPER privilege"))
        elif upper == "FILE":
            add(Finding(SERVER_FILES, "FILE privilege: it can read and write the server's files"))
        elif upper == "GRANT OPTION":
            add(Finding(CAN_GRANT, f"GRANT OPTION on {obj}"))
        elif upper not in _MYSQL_READ and not upper.startswith("SELECT ("):
            writes.append(f"{priv} on {obj}")
    if writes:
        more = ", ..." if len(writes) > 5 else ""
        add(Finding(CAN_WRITE, f"non-SELECT privileges: {', '.join(writes[:5])}{more}"))
    return report


def _show_grants(connector: Any, sql: str) -> list[str]:
    rows = connector.run_read_only(sql, (), 1000).rows
    return [str(r[0]) for r in rows]


def _split_privileges(text: str) -> list[str]:
    """``SELECT, INSERT (a, b), SHOW VIEW`` -> its privileges (column lists kept with theirs)."""
    out, depth, current = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        out.append(current.strip())
    return out


def _spanner(connector: Any) -> PrivilegeReport:
    dsn = connector.dsn
    if dsn.emulator_host:
        return PrivilegeReport(
            "spanner",
            "(emulator)",
            checked=False,
            findings=[Finding(UNCHECKED, "the Spanner emulator has no access control: any client can write")],
        )
    try:
        response = connector.client.database_admin_api.test_iam_permissions(
            resource=connector.database.name, permissions=list(_SPANNER_WRITE)
        )
    except Exception as exc:  # noqa: BLE001 - google.api_core errors: say what stopped the check
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return PrivilegeReport(
            "spanner",
            "(credentials)",
            checked=False,
            findings=[Finding(UNCHECKED, f"IAM did not answer: {first}")],
        )
    granted = list(getattr(response, "permissions", []) or [])
    report = PrivilegeReport("spanner", "(credentials)")
    if granted:
        report.findings.append(Finding(CAN_WRITE, f"IAM grants {', '.join(granted)}"))
    return report


# ------------------------------------------------------------------------ the start-up warning

_warned: dict[str, str | None] = {}
_warned_lock = threading.Lock()


def startup_warning(dsn: str | DSN, connector: Connector | None = None) -> str | None:
    """The one-line warning ``ask``, ``serve`` and ``mcp`` print at start when the role can do more
    than read, or None. One check per DSN and process (cached); None when
    ``CTXTOOL_NO_PRIVILEGE_WARNING`` is set or the check itself fails (the command's own connection
    reports an unreachable database better). ``connector``: an open one to reuse."""
    if os.environ.get(SILENCE_ENV, "").strip() not in ("", "0"):
        return None
    parsed = dsn if isinstance(dsn, DSN) else parse(dsn)
    key = parsed.redacted
    with _warned_lock:
        if key in _warned:
            return _warned[key]
    message: str | None = None
    try:
        if connector is not None:
            report = check_privileges(connector)
        else:
            from ctxtool.connectors import connect

            with connect(parsed, statement_timeout=5.0) as own:
                report = check_privileges(own)
        if report.checked and not report.ok:
            message = f"warning: {report.summary()}; set {SILENCE_ENV}=1 to silence this"
    except Exception:  # noqa: BLE001 - a warning must never stop the command
        message = None
    with _warned_lock:
        _warned[key] = message
    return message
