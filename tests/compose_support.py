"""A schema of our own with the shapes real databases have (a store: customers, orders, order lines,
products, categories, suppliers; a date, a timestamp and a date kept as text) for the composition
fixtures, and reading the fixtures' edits from JSON."""

from __future__ import annotations

from datetime import date
from typing import Any

from ctxtool.compose import (
    ColumnRef,
    Condition,
    Edit,
    Grouping,
    Measure,
    OrderLimit,
    Retime,
    SchemaGraph,
    TimeRange,
)

STORE = SchemaGraph.build(
    [
        ("region", [("region_id", "integer"), ("region_name", "text")], []),
        (
            "customer",
            [
                ("customer_id", "integer"),
                ("full_name", "text"),
                ("city", "text"),
                ("tier", "text"),
                ("region_id", "integer"),
                ("joined_on", "date"),
            ],
            [(["region_id"], "region", ["region_id"])],
        ),
        ("category", [("category_id", "integer"), ("category_name", "text")], []),
        ("supplier", [("supplier_id", "integer"), ("company", "text"), ("country", "text")], []),
        (
            "product",
            [
                ("product_id", "integer"),
                ("product_name", "text"),
                ("unit_price", "numeric"),
                ("category_id", "integer"),
                ("supplier_id", "integer"),
                ("discontinued", "boolean"),
            ],
            [(["category_id"], "category", ["category_id"]), (["supplier_id"], "supplier", ["supplier_id"])],
        ),
        (
            "orders",
            [
                ("order_id", "integer"),
                ("customer_id", "integer"),
                ("ordered_at", "timestamp"),
                ("shipped_on", "text"),
                ("total", "numeric"),
            ],
            [(["customer_id"], "customer", ["customer_id"])],
        ),
        (
            "order_line",
            [
                ("order_id", "integer"),
                ("product_id", "integer"),
                ("quantity", "integer"),
                ("price", "numeric"),
            ],
            [(["order_id"], "orders", ["order_id"]), (["product_id"], "product", ["product_id"])],
        ),
        (
            "Shipment Log",
            [("Log ID", "integer"), ("order_id", "integer"), ("Logged", "date")],
            [(["order_id"], "orders", ["order_id"])],
        ),
        ("audit_note", [("note_id", "integer"), ("body", "text")], []),
    ]
)


MEDIA = SchemaGraph.build(
    [
        ("genre", [("genre_id", "integer"), ("name", "text")], []),
        (
            "track",
            [
                ("track_id", "integer"),
                ("name", "text"),
                ("genre_id", "integer"),
                ("milliseconds", "integer"),
                ("unit_price", "numeric"),
            ],
            [(["genre_id"], "genre", ["genre_id"])],
        ),
        (
            "invoice",
            [
                ("invoice_id", "integer"),
                ("invoice_date", "timestamp"),
                ("billing_country", "text"),
                ("total", "numeric"),
            ],
            [],
        ),
        (
            "invoice_line",
            [
                ("invoice_line_id", "integer"),
                ("invoice_id", "integer"),
                ("track_id", "integer"),
                ("quantity", "integer"),
            ],
            [(["invoice_id"], "invoice", ["invoice_id"]), (["track_id"], "track", ["track_id"])],
        ),
    ]
)
SCHEMAS = {"store": STORE, "media": MEDIA}


def _ref(text: str | None) -> ColumnRef | None:
    if text is None:
        return None
    table, _, column = text.rpartition(".")
    return ColumnRef(table, column)


def _date(text: str | None) -> date | None:
    return date.fromisoformat(text) if text else None


def edit(spec: dict[str, Any]) -> Edit:
    """One edit from its JSON form: ``{"condition": "table.column", "op": "eq", "value": ...}``,
    ``{"time": "t.c", "start": "2007-03-01", "end": ...}``, ``{"group": "t.c", "grain": "month"}``,
    ``{"order": "t.c" | null, "desc": true, "limit": 5}``, ``{"measure": "sum", "of": "t.c"}``,
    ``{"retime": true, "start": ..., "end": ...}`` (the template's own time replaced)."""
    if "condition" in spec:
        return Condition(_ref(spec["condition"]), spec.get("op", "eq"), spec["value"])  # type: ignore[arg-type]
    if "time" in spec:
        return TimeRange(_ref(spec["time"]), _date(spec.get("start")), _date(spec.get("end")))  # type: ignore[arg-type]
    if "group" in spec:
        return Grouping(_ref(spec["group"]), spec.get("grain"), spec.get("replace", True))  # type: ignore[arg-type]
    if "order" in spec:
        return OrderLimit(spec.get("desc", True), spec.get("limit"), _ref(spec["order"]))
    if "retime" in spec:
        return Retime(_date(spec.get("start")), _date(spec.get("end")))
    if "measure" in spec:
        return Measure(spec["measure"], _ref(spec.get("of")), spec.get("distinct", False))
    raise ValueError(f"unknown edit {spec}")
