"""Databases shaped like the ones teams run (issue 12), and the whole authoring pipeline over them.

The shapes: tables in named schemas (two of them hold a table of the same name), an enum, a domain
over integer, a text array, ``char(n)``, json/jsonb, uuid, bytea, interval, money, a stored (and on
PostgreSQL 18 a virtual) generated column, a partitioned table, a self-referencing foreign key, a
many-to-many link table, audit columns, and a view that restates a table; on MariaDB ENUM, SET,
``tinyint(1)`` and PascalCase names; on Spanner a named schema and interleaved tables.

:func:`author` runs every stage through the library API the CLI uses and returns what each made.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

FIRST = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Niklaus", "Radia"]
LAST = [
    "Lovelace",
    "Hopper",
    "Turing",
    "Dijkstra",
    "Liskov",
    "Knuth",
    "Allen",
    "Thompson",
    "Wirth",
    "Perlman",
]
ADJ = ["Blue", "Silent", "Rapid", "Golden", "Tiny", "Northern", "Bright", "Quiet"]
NOUN = ["Lamp", "Kettle", "Harbor", "Compass", "Lantern", "Anchor", "Beacon", "Meadow"]
REGIONS = ["North", "South", "East", "West", "Central"]
DEPARTMENTS = ["Research", "Support", "Finance", "Legal"]
CATEGORIES = ["Garden", "Kitchen", "Office", "Outdoor", "Travel"]
STATUSES = ["pending", "shipped", "delivered", "cancelled"]


def _q(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _person(i: int) -> str:
    return f"{FIRST[i % 10]} {LAST[(i * 3 + i // 10) % 10]}"


def _product(i: int) -> str:
    return f"{ADJ[i % 8]} {NOUN[(i // 8 + i) % 8]}"


# --------------------------------------------------------------------------------------- PostgreSQL


def postgres_sql(version: int) -> list[str]:
    """The PostgreSQL fixture (``version`` is the server's major version: 18 adds a virtual column)."""
    virtual = (
        ", list_cents integer GENERATED ALWAYS AS ((base_price * 100)::integer) VIRTUAL"
        ", shelf_label text GENERATED ALWAYS AS (category || ' shelf') VIRTUAL"
        if version >= 18
        else ""
    )
    out = [
        "CREATE SCHEMA sales",
        "CREATE SCHEMA hr",
        "CREATE TYPE sales.order_status AS ENUM ('pending', 'shipped', 'delivered', 'cancelled')",
        "CREATE DOMAIN hr.year_number AS integer CHECK (VALUE BETWEEN 1900 AND 2100)",
        """CREATE TABLE hr.staff (
            staff_id integer PRIMARY KEY,
            full_name text NOT NULL,
            manager_id integer REFERENCES hr.staff (staff_id),
            department char(12) NOT NULL,
            hired_year hr.year_number NOT NULL,
            salary numeric(10, 2) NOT NULL,
            last_update timestamp NOT NULL DEFAULT '2024-01-01 00:00:00')""",
        """CREATE TABLE sales.staff (
            staff_id integer PRIMARY KEY,
            full_name text NOT NULL,
            region varchar(20) NOT NULL,
            created_at timestamptz NOT NULL DEFAULT '2024-01-01 00:00:00+00')""",
        f"""CREATE TABLE sales.product (
            product_id integer PRIMARY KEY,
            product_name text NOT NULL,
            category varchar(30) NOT NULL,
            tags text[] NOT NULL,
            base_price numeric(10, 2) NOT NULL,
            list_price money NOT NULL,
            price_with_tax numeric GENERATED ALWAYS AS (base_price * 1.2) STORED,
            details jsonb,
            raw_details json,
            sku uuid NOT NULL,
            picture bytea,
            warranty interval,
            last_update timestamp NOT NULL DEFAULT '2024-01-01 00:00:00'{virtual})""",
        """CREATE TABLE sales.orders (
            order_id integer NOT NULL,
            order_date date NOT NULL,
            status sales.order_status NOT NULL,
            staff_id integer NOT NULL REFERENCES sales.staff (staff_id),
            product_id integer NOT NULL REFERENCES sales.product (product_id),
            amount numeric(10, 2) NOT NULL,
            PRIMARY KEY (order_id, order_date)) PARTITION BY RANGE (order_date)""",
        "CREATE TABLE sales.orders_2023 PARTITION OF sales.orders FOR VALUES FROM ('2023-01-01') TO ('2024-01-01')",
        "CREATE TABLE sales.orders_2024 PARTITION OF sales.orders FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
        "CREATE TABLE sales.bundle (bundle_id integer PRIMARY KEY, bundle_name text NOT NULL)",
        """CREATE TABLE sales.bundle_product (
            bundle_id integer NOT NULL REFERENCES sales.bundle (bundle_id),
            product_id integer NOT NULL REFERENCES sales.product (product_id),
            last_update timestamp NOT NULL DEFAULT '2024-01-01 00:00:00',
            PRIMARY KEY (bundle_id, product_id))""",
        "CREATE VIEW sales.product_list AS SELECT product_id, product_name, category FROM sales.product",
        # types no draft can use as a value, a dimension or a measure: skipped with a reason
        """CREATE TABLE hr.device (
            device_id serial PRIMARY KEY, device_name text NOT NULL, ip inet, location point,
            search tsvector, valid_during int4range, spec xml, flags bit varying(8), opens_at timetz,
            sizes numeric[], weight real NOT NULL, rating smallint NOT NULL)""",
        """INSERT INTO hr.device (device_name, ip, location, search, valid_during, spec, flags, opens_at,
            sizes, weight, rating)
            SELECT 'Device ' || chr(65 + g % 26) || g, ('10.0.0.' || g)::inet, point(g, g),
            to_tsvector('simple', 'device ' || g), int4range(g, g + 10), NULL::xml, B'101',
            '10:00+02'::timetz, ARRAY[g, g * 2]::numeric[], g * 0.75, g % 5 FROM generate_series(1, 120) g""",
    ]
    hr = ", ".join(
        f"({i}, {_q(_person(i))}, {'NULL' if i == 1 else 1 + (i % 4)}, {_q(DEPARTMENTS[i % 4])}, "
        f"{1990 + i % 30}, {30000 + 750 * i})"
        for i in range(1, 41)
    )
    out.append(
        f"INSERT INTO hr.staff (staff_id, full_name, manager_id, department, hired_year, salary) VALUES {hr}"
    )
    st = ", ".join(f"({i}, {_q(_person(i + 5))}, {_q(REGIONS[i % 5])})" for i in range(1, 31))
    out.append(f"INSERT INTO sales.staff (staff_id, full_name, region) VALUES {st}")
    pr = ", ".join(
        f"({i}, {_q(_product(i))}, {_q(CATEGORIES[i % 5])}, ARRAY[{_q(ADJ[i % 8].lower())}, {_q(CATEGORIES[i % 5].lower())}], "
        f'{5 + i * 1.5:.2f}, {5 + i * 1.5:.2f}, \'{{"color": "{ADJ[i % 8]}"}}\', \'{{"n": {i}}}\', '
        f"'00000000-0000-4000-8000-{i:012d}', '\\x0102'::bytea, '{i % 3 + 1} years')"
        for i in range(1, 61)
    )
    out.append(
        "INSERT INTO sales.product (product_id, product_name, category, tags, base_price, list_price, details, "
        f"raw_details, sku, picture, warranty) VALUES {pr}"
    )
    od = ", ".join(
        f"({i}, DATE '2023-01-05' + {i * 3}, {_q(STATUSES[i % 4])}, {1 + i % 30}, {1 + (i * 7) % 60}, {10 + (i * 13) % 400})"
        for i in range(1, 201)
    )
    out.append(
        f"INSERT INTO sales.orders (order_id, order_date, status, staff_id, product_id, amount) VALUES {od}"
    )
    out.append(
        "INSERT INTO sales.bundle VALUES "
        + ", ".join(f"({i}, {_q(ADJ[i % 8] + ' Collection')})" for i in range(1, 9))
    )
    links = sorted({(1 + i % 8, 1 + (i * 5) % 60) for i in range(40)})
    out.append(
        "INSERT INTO sales.bundle_product (bundle_id, product_id) VALUES "
        + ", ".join(f"({b}, {p})" for b, p in links)
    )
    out.append("ANALYZE")
    return out


def load_postgres(dsn: str) -> None:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        version = conn.info.server_version // 10000
        for stmt in postgres_sql(version):
            conn.execute(stmt)


# Shapes of databases designed elsewhere (issue 27): keys declared on partitions only (Pagila's
# payment; store_id's key on one partition only, the other's columns in another order), a
# materialized view WITH NO DATA, tables in a named schema, secrets (by name and by content).
EDGE_PG_SQL = """
CREATE SCHEMA shop;
CREATE TABLE shop.customer (customer_id int PRIMARY KEY, full_name text NOT NULL);
CREATE TABLE shop.staff (staff_id int PRIMARY KEY, full_name text NOT NULL, username text NOT NULL,
    password text, verifier text, salt_grams numeric(4, 1));
CREATE TABLE shop.store (store_id int PRIMARY KEY, city text NOT NULL);
CREATE TABLE shop.payment (
    payment_id int NOT NULL, customer_id int NOT NULL, staff_id int NOT NULL, store_id int NOT NULL,
    amount numeric(8, 2) NOT NULL, paid_on date NOT NULL) PARTITION BY RANGE (paid_on);
-- the partitions declare the keys, as Pagila does; store_id's key is on one partition only
CREATE TABLE shop.payment_2023 (
    payment_id int NOT NULL, customer_id int NOT NULL REFERENCES shop.customer,
    staff_id int NOT NULL REFERENCES shop.staff, store_id int NOT NULL REFERENCES shop.store,
    amount numeric(8, 2) NOT NULL, paid_on date NOT NULL);
ALTER TABLE shop.payment ATTACH PARTITION shop.payment_2023 FOR VALUES FROM ('2023-01-01') TO ('2024-01-01');
-- columns in another order: attnums differ from the parent's
CREATE TABLE shop.payment_2024 (
    paid_on date NOT NULL, amount numeric(8, 2) NOT NULL, store_id int NOT NULL,
    staff_id int NOT NULL REFERENCES shop.staff, customer_id int NOT NULL REFERENCES shop.customer,
    payment_id int NOT NULL);
ALTER TABLE shop.payment ATTACH PARTITION shop.payment_2024 FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
INSERT INTO shop.customer SELECT g, 'Customer ' || g FROM generate_series(1, 20) g;
-- Pagila keeps sha1 hex in staff.password; verifier holds bcrypt strings under a plain name
INSERT INTO shop.staff SELECT g, (ARRAY['Mike Hillyer', 'Jon Stephens', 'Ada Lovelace', 'Alan Turing'])[g],
    'user' || g, encode(sha256(('pw' || g)::bytea), 'hex'),
    '$2b$12$' || substr(md5(g::text) || md5((g + 7)::text) || md5((g + 9)::text), 1, 53),
    g * 1.5 FROM generate_series(1, 4) g;
INSERT INTO shop.store VALUES (1, 'Lethbridge'), (2, 'Woodridge');
INSERT INTO shop.payment SELECT g, 1 + g % 20, 1 + g % 4, 1 + g % 2, g * 0.5,
    DATE '2023-06-01' + g * 2 FROM generate_series(1, 200) g;
CREATE MATERIALIZED VIEW shop.sales_by_store AS
    SELECT s.city, sum(p.amount) AS total FROM shop.payment p JOIN shop.store s USING (store_id)
    GROUP BY s.city WITH NO DATA;
ANALYZE;
"""


# ------------------------------------------------------------------------------------------ MariaDB


def mariadb_sql(other: str) -> list[str]:
    """The MariaDB fixture in the connection's database; ``other`` is a second database (schema)
    holding a table of the same name as one here."""
    out = [
        """CREATE TABLE `Staff` (
            `StaffId` INT PRIMARY KEY,
            `FullName` VARCHAR(60) NOT NULL,
            `ReportsTo` INT NULL,
            `Region` ENUM('North', 'South', 'East', 'West', 'Central') NOT NULL,
            `Skills` SET('sql', 'python', 'sales', 'support') NOT NULL,
            `IsActive` TINYINT(1) NOT NULL,
            `LastUpdate` TIMESTAMP NOT NULL DEFAULT '2024-01-01 00:00:00',
            CONSTRAINT `FK_StaffReportsTo` FOREIGN KEY (`ReportsTo`) REFERENCES `Staff` (`StaffId`))""",
        """CREATE TABLE `Product` (
            `ProductId` INT PRIMARY KEY,
            `ProductName` VARCHAR(60) NOT NULL,
            `Category` VARCHAR(30) NOT NULL,
            `UnitPrice` DECIMAL(10, 2) NOT NULL,
            `PriceWithTax` DECIMAL(10, 2) AS (`UnitPrice` * 1.2) PERSISTENT,
            `NameLength` INT AS (CHAR_LENGTH(`ProductName`)) VIRTUAL,
            `Details` JSON,
            `CreatedAt` DATETIME NOT NULL DEFAULT '2024-01-01 00:00:00')""",
        """CREATE TABLE `Bundle` (`BundleId` INT PRIMARY KEY, `BundleName` VARCHAR(60) NOT NULL)""",
        """CREATE TABLE `BundleProduct` (
            `BundleId` INT NOT NULL, `ProductId` INT NOT NULL,
            PRIMARY KEY (`BundleId`, `ProductId`),
            FOREIGN KEY (`BundleId`) REFERENCES `Bundle` (`BundleId`),
            FOREIGN KEY (`ProductId`) REFERENCES `Product` (`ProductId`))""",
        """CREATE TABLE `OrderLine` (
            `OrderLineId` INT PRIMARY KEY,
            `StaffId` INT NOT NULL,
            `ProductId` INT NOT NULL,
            `Status` ENUM('pending', 'shipped', 'delivered', 'cancelled') NOT NULL,
            `OrderDate` DATE NOT NULL,
            `Quantity` INT NOT NULL,
            FOREIGN KEY (`StaffId`) REFERENCES `Staff` (`StaffId`),
            FOREIGN KEY (`ProductId`) REFERENCES `Product` (`ProductId`))""",
        "CREATE VIEW `ProductList` AS SELECT `ProductId`, `ProductName`, `Category` FROM `Product`",
        """CREATE TABLE `Device` (
            `DeviceId` INT PRIMARY KEY, `DeviceName` VARCHAR(40) NOT NULL, `BuiltYear` YEAR NOT NULL,
            `Enabled` BIT(1) NOT NULL, `OpensAt` TIME NOT NULL, `Firmware` BLOB, `Checksum` BINARY(4),
            `Tag` VARBINARY(10), `Weight` DOUBLE NOT NULL, `Units` MEDIUMINT UNSIGNED NOT NULL)""",
        f"""CREATE TABLE `{other}`.`Staff` (
            `StaffId` INT PRIMARY KEY, `FullName` VARCHAR(60) NOT NULL, `Department` VARCHAR(20) NOT NULL)""",
    ]
    skills = ["sql", "python,sql", "sales", "support,sales", "python"]
    out.append(
        "INSERT INTO `Staff` (`StaffId`, `FullName`, `ReportsTo`, `Region`, `Skills`, `IsActive`) VALUES "
        + ", ".join(
            f"({i}, {_q(_person(i))}, {'NULL' if i == 1 else 1 if i <= 5 else 1 + i % 4}, {_q(REGIONS[i % 5])}, "
            f"{_q(skills[i % 5])}, {i % 3 != 0:d})"
            for i in range(1, 41)
        )
    )
    out.append(
        "INSERT INTO `Product` (`ProductId`, `ProductName`, `Category`, `UnitPrice`, `Details`) VALUES "
        + ", ".join(
            f"({i}, {_q(_product(i))}, {_q(CATEGORIES[i % 5])}, {5 + i * 1.5:.2f}, '{{\"n\": {i}}}')"
            for i in range(1, 61)
        )
    )
    out.append(
        "INSERT INTO `Bundle` VALUES "
        + ", ".join(f"({i}, {_q(ADJ[i % 8] + ' Collection')})" for i in range(1, 9))
    )
    links = sorted({(1 + i % 8, 1 + (i * 5) % 60) for i in range(40)})
    out.append("INSERT INTO `BundleProduct` VALUES " + ", ".join(f"({b}, {p})" for b, p in links))
    out.append(
        "INSERT INTO `OrderLine` VALUES "
        + ", ".join(
            f"({i}, {1 + i % 40}, {1 + (i * 7) % 60}, {_q(STATUSES[i % 4])}, "
            f"DATE '2023-01-05' + INTERVAL {i * 3} DAY, {1 + i % 9})"
            for i in range(1, 201)
        )
    )
    out.append(
        "INSERT INTO `Device` VALUES "
        + ", ".join(
            f"({i}, 'Device {i}', {1990 + i % 30}, {i % 2}, SEC_TO_TIME({i * 100}), 'xx', 'abcd', 'v', "
            f"{i * 1.5}, {i * 3})"
            for i in range(1, 121)
        )
    )
    out.append(
        f"INSERT INTO `{other}`.`Staff` VALUES "
        + ", ".join(f"({i}, {_q(_person(i + 3))}, {_q(DEPARTMENTS[i % 4])})" for i in range(1, 21))
    )
    return out


# ------------------------------------------------------------------------------------------ Spanner


def spanner_ddl() -> list[str]:
    """A named schema with interleaved tables, beside a table of the same name in the default one."""
    return [
        "CREATE SCHEMA sales",
        """CREATE TABLE sales.Customer (
            CustomerId INT64 NOT NULL, CustomerName STRING(60) NOT NULL, Region STRING(20) NOT NULL
        ) PRIMARY KEY (CustomerId)""",
        """CREATE TABLE sales.Invoice (
            CustomerId INT64 NOT NULL, InvoiceId INT64 NOT NULL, Status STRING(20) NOT NULL,
            InvoiceDate DATE NOT NULL, Total NUMERIC NOT NULL
        ) PRIMARY KEY (CustomerId, InvoiceId), INTERLEAVE IN PARENT sales.Customer ON DELETE CASCADE""",
        """CREATE TABLE Customer (
            CustomerId INT64 NOT NULL, CustomerName STRING(60) NOT NULL, Segment STRING(20) NOT NULL,
            Active BOOL NOT NULL, Score FLOAT64, Tags ARRAY<STRING(MAX)>, Details JSON, Payload BYTES(MAX),
            UpdatedAt TIMESTAMP, SegmentLabel STRING(MAX) AS (CONCAT(Segment, ' segment')) STORED
        ) PRIMARY KEY (CustomerId)""",
    ]


def spanner_rows() -> dict[str, tuple[list[str], list[tuple]]]:
    import base64
    import datetime
    import decimal

    from google.cloud.spanner_v1.data_types import JsonObject

    return {
        "sales.Customer": (
            ["CustomerId", "CustomerName", "Region"],
            [(i, _person(i), REGIONS[i % 5]) for i in range(1, 31)],
        ),
        "sales.Invoice": (
            ["CustomerId", "InvoiceId", "Status", "InvoiceDate", "Total"],
            [
                (
                    1 + i % 30,
                    i,
                    STATUSES[i % 4],
                    datetime.date(2023, 1, 5) + datetime.timedelta(days=i * 3),
                    decimal.Decimal(10 + (i * 13) % 400),
                )
                for i in range(1, 121)
            ],  # fmt: skip
        ),
        "Customer": (
            [
                "CustomerId",
                "CustomerName",
                "Segment",
                "Active",
                "Score",
                "Tags",
                "Details",
                "Payload",
                "UpdatedAt",
            ],
            [
                (
                    i,
                    _person(i + 4),
                    CATEGORIES[i % 5],
                    i % 3 != 0,
                    i * 1.5,
                    [ADJ[i % 8], NOUN[i % 8]],
                    JsonObject({"n": i}),
                    base64.b64encode(b"\x01\x02"),
                    datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc),
                )
                for i in range(1, 21)
            ],  # fmt: skip
        ),
    }


# ------------------------------------------------------------------------------------- the pipeline


@dataclass
class Authored:
    """What each stage made on one database."""

    snapshot: dict
    templates: Any  # ctxtool.draft.pipeline.DraftResult
    facets: Any
    recipes: list
    value_notes: list[str]
    data: dict  # the parameterized set
    report: list  # parameterize's item reports
    findings: list = field(default_factory=list)  # validate errors (snapshot + live database)
    values: Any = None  # test-values report
    failing: list[str] = field(default_factory=list)  # drafted templates that fail to execute

    def questions(self) -> list[str]:
        return [d.text for d in self.templates.kept]

    def sql(self) -> str:
        return "\n".join(t["sql"] for t in self.data["templates"])

    def rejected(self) -> list[str]:
        """Drafts dropped because the database or the validator rejected them (drafting bugs)."""
        return [
            f"{d.text}: {d.reason}"
            for r in (self.templates, self.facets)
            for d in r.dropped
            if (d.reason or "").startswith(("fails:", "CTX"))
        ]


def author(dsn: str, schemas: list[str] | None = None) -> Authored:
    """introspect --profile, draft templates/facets/values, parameterize, validate (snapshot and
    live), test-values and execute every drafted template, on ``dsn``."""
    from ctxtool import contextset, jsondoc
    from ctxtool import snapshot as snapshots
    from ctxtool.connectors import connect
    from ctxtool.draft import draft
    from ctxtool.errors import CtxtoolError
    from ctxtool.parameterize import parameterize_set
    from ctxtool.validate import validate_set
    from ctxtool.values.draft import draft as draft_values
    from ctxtool.values.draft import merge, server_from_connector
    from ctxtool.values.testing import test_values

    with connect(dsn, statement_timeout=10.0) as conn:
        snap = snapshots.build(conn, schemas, profile=True)
        snap = json.loads(snapshots.dumps(snap))  # as a file would hold it
        templates = draft("templates", snap, connector=conn)
        facets = draft("facets", snap, connector=conn)
        recipes, notes = draft_values(snap, server=server_from_connector(conn), connector=conn)
        data, _, _ = merge({"templates": templates.items(), "facets": facets.items()}, recipes)
        data, report = parameterize_set(data, snap["dialect"], snap)
        cs = contextset.loads(jsondoc.dumps_json(data), "<authored>")
        out = Authored(snap, templates, facets, recipes, notes, data, report)
        for snapshot, connector in ((snap, None), (snap, conn)):
            out.findings += [
                f"{f.pointer}: {f.code} {f.message}"
                for f in validate_set(cs, dialect=snap["dialect"], snapshot=snapshot, connector=connector)
                if f.is_error and f.code != "CTX003"
            ]
        out.values = test_values(cs, conn)
        for t in data["templates"]:
            try:
                conn.query(t["sql"])
            except CtxtoolError as exc:
                out.failing.append(f"{t['nl_query']}: {exc}")
    return out


def value_failures(
    authored: Authored, checks: tuple[str, ...] = ("runs", "shape", "exact", "nomatch")
) -> list[str]:
    return [
        f"{r.concept_type}: {c.name}: {c.message}"
        for r in authored.values.results
        for c in r.checks
        if c.name in checks and not c.ok
    ]
