"""The sample schemas, described once and rendered as DDL for each engine.

One description keeps table and column names identical on PostgreSQL, MySQL/MariaDB and Spanner
(GoogleSQL and PostgreSQL dialect), so a context set written for one sample runs on every engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ctxtool.errors import CtxtoolError

ENGINES = ("postgres", "mysql", "spanner", "spanner-pg")
DATASETS = ("financial", "airports")


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # int | text | date | numeric | float | timestamp
    length: int = 0  # text: max length on MySQL/Spanner (VARCHAR(n) / STRING(n)); numeric: precision
    scale: int = 0  # numeric: scale
    nullable: bool = True
    comment: str = ""


@dataclass(frozen=True)
class ForeignKey:
    column: str
    ref_table: str
    ref_column: str


@dataclass(frozen=True)
class Table:
    name: str
    dataset: str
    comment: str
    columns: tuple[Column, ...]
    primary_key: str
    foreign_keys: tuple[ForeignKey, ...] = ()
    indexes: tuple[str, ...] = ()  # single-column plain indexes (FK columns)
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]


def _pk(name: str) -> Column:
    return Column(name, "int", nullable=False)


TABLES: tuple[Table, ...] = (
    Table(
        "district",
        "financial",
        "Czech districts with demographic figures (columns A2..A16 as in the original data set)",
        (
            _pk("district_id"),
            Column("A2", "text", 40, nullable=False, comment="district name"),
            Column("A3", "text", 20, nullable=False, comment="region"),
            Column("A4", "int", comment="number of inhabitants"),
            Column("A10", "numeric", 5, 1, comment="ratio of urban inhabitants (percent)"),
            Column("A11", "int", comment="average salary (CZK per month)"),
            Column("A12", "numeric", 5, 2, comment="unemployment rate 1995 (percent)"),
            Column("A13", "numeric", 5, 2, comment="unemployment rate 1996 (percent)"),
            Column("A15", "int", comment="number of committed crimes 1995"),
            Column("A16", "int", comment="number of committed crimes 1996"),
        ),
        "district_id",
    ),
    Table(
        "account",
        "financial",
        "Bank accounts; frequency is how often statements are issued",
        (
            _pk("account_id"),
            Column("district_id", "int", nullable=False, comment="branch location"),
            Column(
                "frequency",
                "text",
                20,
                nullable=False,
                comment="statement frequency: POPLATEK MESICNE monthly, POPLATEK TYDNE weekly, "
                "POPLATEK PO OBRATU after a transaction",
            ),
            Column("date", "date", nullable=False, comment="date the account was opened"),
        ),
        "account_id",
        (ForeignKey("district_id", "district", "district_id"),),
        ("district_id",),
    ),
    Table(
        "client",
        "financial",
        "Bank clients",
        (
            _pk("client_id"),
            Column("gender", "text", 1, nullable=False, comment="M or F"),
            Column("birth_date", "date", nullable=False),
            Column("district_id", "int", nullable=False, comment="where the client lives"),
        ),
        "client_id",
        (ForeignKey("district_id", "district", "district_id"),),
    ),
    Table(
        "disp",
        "financial",
        "Dispositions: which client may operate which account",
        (
            _pk("disp_id"),
            Column("client_id", "int", nullable=False),
            Column("account_id", "int", nullable=False),
            Column("type", "text", 10, nullable=False, comment="OWNER or DISPONENT (user)"),
        ),
        "disp_id",
        (
            ForeignKey("client_id", "client", "client_id"),
            ForeignKey("account_id", "account", "account_id"),
        ),
        ("account_id",),
    ),
    Table(
        "loan",
        "financial",
        "Loans granted on accounts",
        (
            _pk("loan_id"),
            Column("account_id", "int", nullable=False),
            Column("date", "date", nullable=False, comment="date the loan was granted"),
            Column("amount", "int", nullable=False, comment="amount in CZK"),
            Column("duration", "int", nullable=False, comment="duration in months"),
            Column("payments", "numeric", 12, 2, nullable=False, comment="monthly payment in CZK"),
            Column(
                "status",
                "text",
                1,
                nullable=False,
                comment="A finished OK, B finished unpaid, C running OK, D running in debt",
            ),
        ),
        "loan_id",
        (ForeignKey("account_id", "account", "account_id"),),
    ),
    Table(
        "card",
        "financial",
        "Credit cards issued to dispositions",
        (
            _pk("card_id"),
            Column("disp_id", "int", nullable=False),
            Column("type", "text", 10, nullable=False, comment="junior, classic or gold"),
            Column("issued", "date", nullable=False),
        ),
        "card_id",
        (ForeignKey("disp_id", "disp", "disp_id"),),
    ),
    Table(
        "trans",
        "financial",
        "Transactions on accounts",
        (
            _pk("trans_id"),
            Column("account_id", "int", nullable=False),
            Column("date", "date", nullable=False),
            Column("type", "text", 10, nullable=False, comment="PRIJEM credit, VYDAJ withdrawal"),
            Column(
                "operation",
                "text",
                20,
                comment="VKLAD credit in cash, PREVOD Z UCTU collection from another bank, VYBER "
                "withdrawal in cash, PREVOD NA UCET remittance to another bank, VYBER KARTOU card withdrawal",
            ),
            Column("amount", "numeric", 12, 2, nullable=False, comment="amount in CZK"),
            Column("balance", "numeric", 12, 2, nullable=False, comment="balance after the transaction"),
            Column(
                "k_symbol",
                "text",
                20,
                comment="characterisation: POJISTNE insurance, SLUZBY statement, UROK interest, "
                "SANKC. UROK penalty interest, SIPO household, DUCHOD pension, UVER loan payment",
            ),
        ),
        "trans_id",
        (ForeignKey("account_id", "account", "account_id"),),
        ("account_id",),
    ),
    Table(
        "airports",
        "airports",
        "Airports of the world",
        (
            _pk("airport_id"),
            Column("iata", "text", 3, nullable=False, comment="IATA code, 3 letters"),
            Column("icao", "text", 4, nullable=False, comment="ICAO code, 4 letters"),
            Column("name", "text", 80, nullable=False),
            Column("city", "text", 40, nullable=False),
            Column("country", "text", 40, nullable=False),
            Column("latitude", "float", nullable=False),
            Column("longitude", "float", nullable=False),
            Column("altitude", "int", nullable=False, comment="elevation in feet"),
        ),
        "airport_id",
    ),
    Table(
        "airlines",
        "airports",
        "Airlines",
        (
            _pk("airline_id"),
            Column("name", "text", 60, nullable=False),
            Column("iata", "text", 2, nullable=False, comment="IATA code, 2 characters"),
            Column("country", "text", 40, nullable=False),
        ),
        "airline_id",
    ),
    Table(
        "flights",
        "airports",
        "Scheduled flights between airports",
        (
            _pk("flight_id"),
            Column("airline_id", "int", nullable=False),
            Column("origin_airport_id", "int", nullable=False),
            Column("dest_airport_id", "int", nullable=False),
            Column("departure_time", "timestamp", nullable=False, comment="scheduled departure (UTC)"),
            Column(
                "status",
                "text",
                12,
                nullable=False,
                comment="scheduled, boarding, departed, landed, delayed, cancelled or diverted",
            ),
            Column("distance_km", "int", nullable=False, comment="great-circle distance in km"),
        ),
        "flight_id",
        (
            ForeignKey("airline_id", "airlines", "airline_id"),
            ForeignKey("origin_airport_id", "airports", "airport_id"),
            ForeignKey("dest_airport_id", "airports", "airport_id"),
        ),
        ("origin_airport_id", "dest_airport_id"),
    ),
)


def tables(datasets: tuple[str, ...] | list[str] = DATASETS) -> list[Table]:
    """The tables of ``datasets`` in creation order (parents before children)."""
    unknown = [d for d in datasets if d not in DATASETS]
    if unknown:
        raise CtxtoolError(f"unknown sample dataset {unknown[0]!r}; choose from {', '.join(DATASETS)}")
    return [t for t in TABLES if t.dataset in datasets]


# --------------------------------------------------------------------------- rendering


def _quote(engine: str, name: str) -> str:
    if name == name.lower():
        return name
    return f"`{name}`" if engine in ("mysql", "spanner") else f'"{name}"'


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _type(engine: str, col: Column) -> str:
    k = col.kind
    if engine == "postgres":
        return {
            "int": "integer",
            "text": "text",
            "date": "date",
            "numeric": f"numeric({col.length},{col.scale})",
            "float": "double precision",
            "timestamp": "timestamp",
        }[k]
    if engine == "mysql":
        return {
            "int": "INT",
            "text": f"VARCHAR({col.length or 255})",
            "date": "DATE",
            "numeric": f"DECIMAL({col.length},{col.scale})",
            "float": "DOUBLE",
            "timestamp": "DATETIME",
        }[k]
    if engine == "spanner":
        return {
            "int": "INT64",
            "text": f"STRING({col.length or 'MAX'})",
            "date": "DATE",
            "numeric": "NUMERIC",
            "float": "FLOAT64",
            "timestamp": "TIMESTAMP",
        }[k]
    if engine == "spanner-pg":
        return {
            "int": "bigint",
            "text": f"varchar({col.length})" if col.length else "varchar",
            "date": "date",
            "numeric": "numeric",
            "float": "double precision",
            "timestamp": "timestamptz",
        }[k]
    raise CtxtoolError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")


def _fk_name(table: Table, fk: ForeignKey) -> str:
    return f"{table.name}_{fk.column}_fkey"


def _index_name(table: Table, column: str) -> str:
    return f"{table.name}_{column}_idx"


def table_ddl(engine: str, table: Table) -> list[str]:
    """CREATE TABLE (with its keys), its indexes and (PostgreSQL) comments, as statements."""
    if engine not in ENGINES:
        raise CtxtoolError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    q = lambda n: _quote(engine, n)  # noqa: E731
    lines = []
    for col in table.columns:
        line = f"  {q(col.name)} {_type(engine, col)}"
        if not col.nullable:
            line += " NOT NULL"
        if engine == "mysql" and col.comment:
            line += f" COMMENT {_sql_string(col.comment)}"
        lines.append(line)
    if engine != "spanner":
        lines.append(f"  PRIMARY KEY ({q(table.primary_key)})")
    for fk in table.foreign_keys:
        lines.append(
            f"  CONSTRAINT {_fk_name(table, fk)} FOREIGN KEY ({q(fk.column)}) "
            f"REFERENCES {fk.ref_table} ({q(fk.ref_column)})"
        )
    body = ",\n".join(lines)
    create = f"CREATE TABLE {table.name} (\n{body}\n)"
    if engine == "spanner":
        create += f" PRIMARY KEY ({q(table.primary_key)})"
    elif engine == "mysql":
        create += f" ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COMMENT={_sql_string(table.comment)}"
    statements = [create]
    for column in table.indexes:
        statements.append(f"CREATE INDEX {_index_name(table, column)} ON {table.name} ({q(column)})")
    if engine == "postgres":
        statements.append(f"COMMENT ON TABLE {table.name} IS {_sql_string(table.comment)}")
        for col in table.columns:
            if col.comment:
                statements.append(
                    f"COMMENT ON COLUMN {table.name}.{q(col.name)} IS {_sql_string(col.comment)}"
                )
    return statements


def ddl(engine: str, datasets: tuple[str, ...] | list[str] = DATASETS) -> list[str]:
    """Every DDL statement (no trailing semicolons) that creates ``datasets`` on ``engine``."""
    statements: list[str] = []
    for table in tables(datasets):
        statements.extend(table_ddl(engine, table))
    return statements


def drop_statements(engine: str, datasets: tuple[str, ...] | list[str] = DATASETS) -> list[str]:
    """Statements dropping the sample tables, children first (Spanner: indexes and FKs first)."""
    out: list[str] = []
    for table in reversed(tables(datasets)):
        if engine in ("spanner", "spanner-pg"):
            out.extend(f"DROP INDEX {_index_name(table, c)}" for c in table.indexes)
            out.extend(
                f"ALTER TABLE {table.name} DROP CONSTRAINT {_fk_name(table, fk)}" for fk in table.foreign_keys
            )
    for table in reversed(tables(datasets)):
        out.append(f"DROP TABLE {table.name}")
    return out


_HEADERS = {
    "postgres": "PostgreSQL / AlloyDB",
    "mysql": "MySQL 8 / MariaDB 10.11",
    "spanner": "Spanner (GoogleSQL)",
    "spanner-pg": "Spanner (PostgreSQL dialect)",
}


def ddl_text(engine: str, dataset: str) -> str:
    """The DDL of one dataset as a SQL script (the content of ``samples/db/<engine>/<dataset>.sql``)."""
    head = (
        f"-- ctxtool sample database {dataset!r} for {_HEADERS[engine]}.\n"
        f"-- Generated by ctxtool.sampledata; load data with:\n"
        f"--   python -m ctxtool.sampledata --dsn DSN --datasets {dataset} [--scale S]\n"
    )
    return head + "\n" + "".join(s + ";\n\n" for s in ddl(engine, (dataset,))).rstrip("\n") + "\n"
