"""Deterministic rows for the sample databases: the same rows on every run and every engine.

Every table draws from its own ``random.Random`` seeded with the table name and the scale, so a
table's rows do not depend on which other tables are generated. Values are plain Python types
(int, str, ``date``, ``Decimal``, float, naive UTC ``datetime``) that every driver binds.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from decimal import Decimal

from ctxtool.sampledata.airports_data import AIRLINES, AIRPORTS
from ctxtool.sampledata.districts import CITY_INHABITANTS, DISTRICTS
from ctxtool.sampledata.schema import DATASETS, tables

# Row counts at scale 1.0 for the tables that scale (district, airports, airlines are fixed).
BASE_COUNTS = {
    "account": 4500,
    "client": 5400,  # 4,500 owners + 900 disponents; disp has one row per client
    "loan": 680,
    "card": 900,
    "trans": 60000,
    "flights": 25000,
}


def _rng(table: str, scale: float) -> random.Random:
    return random.Random(f"ctxtool-sampledata:{table}:{scale!r}")


def scaled_counts(scale: float) -> dict[str, int]:
    """Rows per scaled table at ``scale`` (at least 1 each; every account has an owner)."""
    counts = {name: max(1, round(base * scale)) for name, base in BASE_COUNTS.items()}
    counts["client"] = max(counts["client"], counts["account"])
    counts["loan"] = min(counts["loan"], counts["account"])
    counts["card"] = min(counts["card"], counts["client"])
    return counts


def _day(rng: random.Random, start: date, end: date) -> date:
    return start + timedelta(days=rng.randrange((end - start).days + 1))


def _money(value: float) -> Decimal:
    return Decimal(round(value * 100)).scaleb(-2)


class _Picker:
    """Weighted choice by bisect over cumulative weights (fast for many draws)."""

    def __init__(self, items: list, weights: list[float]) -> None:
        self.items = items
        self.cum = list(itertools.accumulate(weights))

    def __call__(self, rng: random.Random):
        return self.items[bisect.bisect_right(self.cum, rng.random() * self.cum[-1])]


# --------------------------------------------------------------------------- financial


def districts() -> list[tuple]:
    rng = random.Random("ctxtool-sampledata:district")
    rows = []
    for district_id, name, region in DISTRICTS:
        inhabitants = CITY_INHABITANTS.get(district_id) or rng.randrange(40000, 180000)
        city = district_id in CITY_INHABITANTS
        urban = Decimal("100.0") if city else Decimal(str(round(rng.uniform(33.0, 90.0), 1)))
        salary = rng.randrange(10000, 12600) if city else rng.randrange(8100, 10200)
        u95 = round(rng.uniform(0.2, 7.5), 2)
        u96 = round(min(9.9, max(0.4, u95 + rng.uniform(-0.4, 1.6))), 2)
        crimes95 = int(inhabitants * rng.uniform(0.018, 0.075))
        crimes96 = int(crimes95 * rng.uniform(0.92, 1.12))
        rows.append(
            (
                district_id,
                name,
                region,
                inhabitants,
                urban,
                salary,
                Decimal(f"{u95:.2f}"),
                Decimal(f"{u96:.2f}"),
                crimes95,
                crimes96,
            )
        )
    return rows


def _district_picker(district_rows: list[tuple]) -> _Picker:
    return _Picker([r[0] for r in district_rows], [float(r[3]) for r in district_rows])


def accounts(scale: float, district_rows: list[tuple]) -> list[tuple]:
    rng = _rng("account", scale)
    pick = _district_picker(district_rows)
    freq = _Picker(["POPLATEK MESICNE", "POPLATEK TYDNE", "POPLATEK PO OBRATU"], [0.92, 0.05, 0.03])
    return [
        (i, pick(rng), freq(rng), _day(rng, date(1993, 1, 1), date(1997, 12, 29)))
        for i in range(1, scaled_counts(scale)["account"] + 1)
    ]


def clients_and_disps(scale: float, account_rows: list[tuple]) -> tuple[list[tuple], list[tuple]]:
    """Clients and dispositions together: client i owns account i; the rest are disponents."""
    rng = _rng("client", scale)
    n_clients = scaled_counts(scale)["client"]
    n_accounts = len(account_rows)
    extra = rng.sample(range(n_accounts), min(n_clients - n_accounts, n_accounts))
    clients, disps = [], []
    for client_id in range(1, n_clients + 1):
        if client_id <= n_accounts:
            account = account_rows[client_id - 1]
            kind = "OWNER"
        else:
            account = account_rows[extra[client_id - n_accounts - 1]]
            kind = "DISPONENT"
        district_id = account[1] if rng.random() < 0.85 else rng.randrange(1, len(DISTRICTS) + 1)
        born = _day(rng, date(1920, 1, 1), date(1980, 12, 31))
        clients.append((client_id, rng.choice("MF"), born, district_id))
        disps.append((client_id, client_id, account[0], kind))
    return clients, disps


def loans(scale: float, account_rows: list[tuple]) -> list[tuple]:
    rng = _rng("loan", scale)
    chosen = sorted(rng.sample(range(len(account_rows)), scaled_counts(scale)["loan"]))
    status = _Picker(["A", "B", "C", "D"], [0.30, 0.05, 0.58, 0.07])
    rows = []
    for loan_id, index in enumerate(chosen, start=1):
        account_id, _, _, opened = account_rows[index]
        duration = rng.choice([12, 24, 36, 48, 60])
        amount = rng.randrange(4980, 590820, 12)
        room = (date(1998, 12, 8) - opened).days
        granted = opened + timedelta(days=rng.randrange(min(30, room), max(31, min(room, 900))))
        rows.append((loan_id, account_id, granted, amount, duration, _money(amount / duration), status(rng)))
    return rows


def cards(scale: float, disp_rows: list[tuple], account_rows: list[tuple]) -> list[tuple]:
    rng = _rng("card", scale)
    owners = [d for d in disp_rows if d[3] == "OWNER"]
    chosen = sorted(rng.sample(range(len(owners)), min(scaled_counts(scale)["card"], len(owners))))
    kind = _Picker(["junior", "classic", "gold"], [0.16, 0.74, 0.10])
    opened = {a[0]: a[3] for a in account_rows}
    rows = []
    for card_id, index in enumerate(chosen, start=1):
        disp_id, _, account_id, _ = owners[index]
        room = (date(1998, 12, 29) - opened[account_id]).days
        issued = opened[account_id] + timedelta(days=rng.randrange(min(30, room), max(31, room)))
        rows.append((card_id, disp_id, kind(rng), issued))
    return rows


_CREDIT = _Picker(
    [("VKLAD", None), ("PREVOD Z UCTU", None), ("PREVOD Z UCTU", "DUCHOD"), (None, "UROK")],
    [0.55, 0.25, 0.08, 0.12],
)
_DEBIT = _Picker(
    [
        ("VYBER", None),
        ("PREVOD NA UCET", "SIPO"),
        ("PREVOD NA UCET", "POJISTNE"),
        ("PREVOD NA UCET", "UVER"),
        ("VYBER KARTOU", None),
        ("VYBER", "SLUZBY"),
        ("PREVOD NA UCET", None),
        (None, "SANKC. UROK"),
    ],
    [0.45, 0.15, 0.05, 0.05, 0.04, 0.16, 0.09, 0.01],
)


def transactions(scale: float, account_rows: list[tuple]) -> list[tuple]:
    """Transactions with running balances per account, numbered in date order."""
    rng = _rng("trans", scale)
    n = scaled_counts(scale)["trans"]
    end = date(1998, 12, 31)
    per_account = [0] * len(account_rows)
    for _ in range(n):
        per_account[rng.randrange(len(account_rows))] += 1
    pending = []
    for (account_id, _, _, opened), count in zip(account_rows, per_account, strict=True):
        if not count:
            continue
        span = (end - opened).days
        days = sorted(rng.randrange(span + 1) for _ in range(count))
        balance = 0  # cents: exact, no float drift
        for offset in days:
            if balance < 100000 or rng.random() < 0.45:
                operation, k_symbol = _CREDIT(rng)
                amount = rng.randrange(10000, 3000000) if k_symbol != "UROK" else rng.randrange(1000, 40000)
                balance += amount
                kind = "PRIJEM"
            else:
                operation, k_symbol = _DEBIT(rng)
                amount = min(balance, rng.randrange(1500, 2000000))
                balance -= amount
                kind = "VYDAJ"
            pending.append(
                (
                    opened + timedelta(days=offset),
                    account_id,
                    kind,
                    operation,
                    Decimal(amount).scaleb(-2),
                    Decimal(balance).scaleb(-2),
                    k_symbol,
                )
            )
    pending.sort(key=lambda r: (r[0], r[1]))  # stable: keeps per-account order within a day
    return [(i, r[1], r[0], r[2], r[3], r[4], r[5], r[6]) for i, r in enumerate(pending, start=1)]


# --------------------------------------------------------------------------- airports


def airports() -> list[tuple]:
    return [(i, *row) for i, row in enumerate(AIRPORTS, start=1)]


def airlines() -> list[tuple]:
    return [(i, *row) for i, row in enumerate(AIRLINES, start=1)]


def _distance_km(a: tuple, b: tuple) -> int:
    lat1, lon1, lat2, lon2 = map(math.radians, (a[6], a[7], b[6], b[7]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return int(round(2 * 6371.0 * math.asin(math.sqrt(h))))


def flights(scale: float, airport_rows: list[tuple], airline_rows: list[tuple]) -> list[tuple]:
    """Flights mostly by airlines from their home country, hubs busier than small airports."""
    rng = _rng("flights", scale)
    n = scaled_counts(scale)["flights"]
    by_country: dict[str, list[tuple]] = {}
    for row in airport_rows:
        by_country.setdefault(row[5], []).append(row)
    # Earlier airports in a country's list are its hubs: weight 1/rank.
    weights = []
    for row in airport_rows:
        rank = by_country[row[5]].index(row) + 1
        weights.append(1.0 / rank)
    pick_airport = _Picker(airport_rows, weights)
    status = _Picker(
        ["scheduled", "boarding", "departed", "landed", "delayed", "cancelled", "diverted"],
        [0.30, 0.03, 0.07, 0.45, 0.11, 0.03, 0.01],
    )
    start = datetime(2024, 1, 1)
    rows = []
    for flight_id in range(1, n + 1):
        airline = airline_rows[rng.randrange(len(airline_rows))]
        home = by_country.get(airline[3])
        origin = rng.choice(home) if home and rng.random() < 0.7 else pick_airport(rng)
        dest = pick_airport(rng)
        while dest[0] == origin[0]:
            dest = pick_airport(rng)
        if rng.random() < 0.5:
            origin, dest = dest, origin
        departure = start + timedelta(minutes=5 * rng.randrange(366 * 24 * 12))
        rows.append(
            (flight_id, airline[0], origin[0], dest[0], departure, status(rng), _distance_km(origin, dest))
        )
    return rows


# --------------------------------------------------------------------------- all tables


def generate(datasets: tuple[str, ...] | list[str] = DATASETS, scale: float = 1.0) -> dict[str, list[tuple]]:
    """Rows per table for ``datasets`` at ``scale``, keyed by table name in creation order."""
    if not (scale > 0 and math.isfinite(scale)):
        from ctxtool.errors import InputError

        raise InputError(f"scale must be a positive number, not {scale!r}")
    names = [t.name for t in tables(datasets)]
    data: dict[str, list[tuple]] = {}
    if "district" in names:
        data["district"] = districts()
        data["account"] = accounts(scale, data["district"])
        data["client"], disp_rows = clients_and_disps(scale, data["account"])
        data["disp"] = disp_rows
        data["loan"] = loans(scale, data["account"])
        data["card"] = cards(scale, disp_rows, data["account"])
        data["trans"] = transactions(scale, data["account"])
    if "airports" in names:
        data["airports"] = airports()
        data["airlines"] = airlines()
        data["flights"] = flights(scale, data["airports"], data["airlines"])
    return {name: data[name] for name in names}


def iter_rows(data: dict[str, list[tuple]]) -> Iterator[tuple[str, list[tuple]]]:
    """(table, rows) pairs in creation order."""
    yield from data.items()
