"""CSV sales report (SR): write a monthly sales report that answers listed questions.

Material: one month of transactions for one sales region, as CSV (the official 19 columns).
Anchors: the questions. Targets: answer sentences computed from exactly the rows in the CSV
(money in integer cents, so every figure is reproducible). The draw weights and amount
multipliers follow the official generator (spec 4.3); sizes are proseval's (``params``).
"""

from __future__ import annotations

import calendar
import csv
import datetime as dt
import io
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._common import words_request
from ._words import LAST_NAMES, REGIONS, person_name, unique

YEAR = 2024  # fixed reference year of every report
COLUMNS = (
    "OrderID",
    "OrderDate",
    "Region",
    "City",
    "SalespersonID",
    "SalespersonName",
    "SalespersonTarget",
    "CustomerID",
    "CustomerName",
    "IsNewCustomer",
    "ProductID",
    "ProductName",
    "ProductCategory",
    "Quantity",
    "UnitPrice",
    "TotalSaleAmount",
    "WeekOfYear",
    "DayOfWeek",
    "DayOfMonth",
)
# (id, name, category, unit price in cents)
CATALOGUE: tuple[tuple[str, str, str, int], ...] = (
    ("P001", "Ledger Pro License", "Software", 120000),
    ("P002", "Inventory Suite", "Software", 240000),
    ("P003", "Analytics Add-on", "Software", 65000),
    ("P004", "Onsite Setup", "Service", 180000),
    ("P005", "Training Day", "Service", 95000),
    ("P006", "Support Retainer", "Service", 320000),
    ("P007", "Barcode Scanner", "Hardware", 24000),
    ("P008", "Receipt Printer", "Hardware", 31000),
    ("P009", "Point-of-Sale Terminal", "Hardware", 145000),
    ("P010", "Server Rack", "Hardware", 890000),
    ("P011", "Thermal Paper Roll", "Consumables", 450),
    ("P012", "Ink Cartridge", "Consumables", 3800),
    ("P013", "Label Pack", "Consumables", 1200),
    ("P014", "Cloud Storage Plan", "Subscription", 18000),
    ("P015", "Security Monitoring", "Subscription", 42000),
    ("P016", "Premium Support Plan", "Subscription", 76000),
    ("P017", "Extended Warranty", "Other", 29000),
    ("P018", "Shipping Insurance", "Other", 8500),
    ("P019", "Data Migration", "Service", 260000),
    ("P020", "Tablet Kiosk", "Hardware", 99000),
)
CATEGORY_FACTOR = {
    "Software": 1.05,
    "Service": 1.1,
    "Hardware": 0.95,
    "Subscription": 1.0,
    "Consumables": 0.8,
    "Other": 0.9,
}
TARGET_RANGE = {"exceed": (1.15, 1.7), "meet": (1.0, 1.0), "miss": (0.6, 0.85)}
GROWTH_RANGE = {"positive": (1.08, 1.22), "neutral": (1.0, 1.0), "negative": (0.82, 0.96)}
NEW_CUSTOMER_PROBABILITY = {"low": 0.08, "medium": 0.20, "high": 0.35}
CUSTOMER_SUFFIXES = (
    "Trading",
    "Supplies",
    "Partners",
    "Group",
    "Foods",
    "Logistics",
    "Retail",
    "Clinic",
    "Studio",
    "Workshop",
    "Hotels",
    "Pharmacy",
)
# English names, fixed here because calendar.day_name/month_name follow the locale
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


@dataclass(frozen=True)
class Row:
    order_id: str
    date: dt.date
    city: str
    rep: str
    customer: str
    product: str
    quantity: int
    cents: int


@dataclass(frozen=True)
class Month:
    """Everything the questions are computed from."""

    region: str
    year: int
    month: int
    regional_target: int  # cents
    previous_sales: int  # cents
    reps: dict[str, tuple[str, int]]  # id -> (name, monthly target in cents)
    customers: dict[str, tuple[str, bool]]  # id -> (name, is new)
    rows: tuple[Row, ...]

    @property
    def label(self) -> str:
        return f"{MONTHS[self.month - 1]} {self.year}"


def _quantity(rng: random.Random, category: str, price: int) -> int:
    if price > 800000 or category in ("Service", "Subscription", "Other"):
        return 1
    if category == "Hardware":
        return rng.randint(1, 10)
    if category == "Consumables":
        return rng.randint(10, 50)
    return rng.randint(1, 5)


def simulate_month(rng: random.Random, p: dict[str, Any]) -> Month:
    """Draw the reps, customers and transactions of one month."""
    region = rng.choice(sorted(REGIONS))
    month = rng.randint(1, 12)
    taken: set[str] = set()
    rep_ids = [f"EMP{i:03d}" for i in range(1, p["num_reps"] + 1)]
    rep_names = {rid: unique(rng, person_name, taken) for rid in rep_ids}
    rep_cities = {rid: rng.choice(REGIONS[region]) for rid in rep_ids}
    customers = {}
    new_probability = NEW_CUSTOMER_PROBABILITY[rng.choice(sorted(NEW_CUSTOMER_PROBABILITY))]
    for i in range(1, p["num_customers"] + 1):
        name = unique(rng, lambda r: f"{r.choice(LAST_NAMES)} {r.choice(CUSTOMER_SUFFIXES)}", taken)
        customers[f"CUST{i:04d}"] = (name, rng.random() < new_probability)
    target_bias = rng.choice(sorted(TARGET_RANGE))
    growth_bias = rng.choice(sorted(GROWTH_RANGE))
    top_rep, bottom_rep = rng.sample(rep_ids, 2)
    top_product = rng.choice(CATALOGUE)[0]
    rep_weights = [
        (p["top_weight"] if r == top_rep else p["bottom_weight"] if r == bottom_rep else 1.0) * rng.uniform(0.9, 1.1)
        for r in rep_ids
    ]
    product_weights = [
        (p["top_weight"] if item[0] == top_product else 1.0) * rng.uniform(0.85, 1.15) for item in CATALOGUE
    ]
    days = calendar.monthrange(YEAR, month)[1]
    drawn, base_total, pre_growth_total = [], 0.0, 0.0
    customer_ids = list(customers)
    for _ in range(p["num_records"]):
        rep = rng.choices(rep_ids, rep_weights)[0]
        pid, _name, category, price = rng.choices(CATALOGUE, product_weights)[0]
        customer = rng.choice(customer_ids)
        quantity = _quantity(rng, category, price)
        target_m = rng.uniform(*TARGET_RANGE[target_bias])
        growth_m = rng.uniform(*GROWTH_RANGE[growth_bias])
        rep_m = rng.uniform(1.1, 1.5) if rep == top_rep else rng.uniform(0.6, 0.85) if rep == bottom_rep else 1.0
        category_m = CATEGORY_FACTOR[category] * rng.uniform(0.95, 1.05)
        new_m = 0.9 if customers[customer][1] else 1.0
        amount = quantity * price * target_m * growth_m * rep_m * category_m * new_m
        cents = max(5000, round(amount * rng.uniform(0.9, 1.1)))
        base_total += cents / (target_m * growth_m)
        pre_growth_total += cents / growth_m
        day = rng.randint(1, days)
        drawn.append((day, rep, customer, pid, quantity, cents))
    drawn.sort(key=lambda t: t[0])  # stable: same-day orders keep draw order
    rows = tuple(
        Row(
            f"ORD-{YEAR}{month:02d}-{k:04d}",
            dt.date(YEAR, month, day),
            rep_cities[rep],
            rep,
            customer,
            pid,
            quantity,
            cents,
        )
        for k, (day, rep, customer, pid, quantity, cents) in enumerate(drawn, 1)
    )
    regional_target = round(base_total / 100000) * 100000
    per_rep = regional_target / len(rep_ids)
    reps = {r: (rep_names[r], round(per_rep * rng.uniform(0.8, 1.2) / 100000) * 100000) for r in rep_ids}
    previous = round(pre_growth_total / 100000) * 100000
    return Month(region, YEAR, month, regional_target, previous, reps, customers, rows)


def render_csv(m: Month) -> str:
    """The transaction table as CSV text (the material shown to the candidate)."""
    products = {item[0]: item for item in CATALOGUE}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for r in m.rows:
        rep_name, rep_target = m.reps[r.rep]
        customer_name, is_new = m.customers[r.customer]
        _, product_name, category, price = products[r.product]
        writer.writerow(
            (
                r.order_id,
                r.date.isoformat(),
                m.region,
                r.city,
                r.rep,
                rep_name,
                rep_target // 100,
                r.customer,
                customer_name,
                "Yes" if is_new else "No",
                r.product,
                product_name,
                category,
                r.quantity,
                f"{price / 100:.2f}",
                f"{r.cents // 100}.{r.cents % 100:02d}",
                r.date.isocalendar()[1],
                WEEKDAYS[r.date.weekday()],
                r.date.day,
            )
        )
    return out.getvalue()


# ---------------------------------------------------------------- answers


def usd(cents: int, divisor: int = 1) -> int:
    """Whole dollars of ``cents / divisor``, rounded half up (exact integer arithmetic)."""
    return (2 * cents + divisor * 100) // (2 * divisor * 100)


def money(dollars: int) -> str:
    return f"USD {dollars:,}"


def percent(numerator: int, denominator: int) -> float:
    return round(100 * numerator / denominator, 1)


def _sums(rows, key: Callable[[Row], str]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for r in rows:
        totals[key(r)] = totals.get(key(r), 0) + r.cents
    return totals


def _top(values: dict[str, int]) -> str | None:
    """The key with the largest value, or None when the top is tied."""
    ranked = sorted(values.items(), key=lambda kv: (-kv[1], kv[0]))
    if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


QA = tuple[str, str, str, dict[str, Any], Any]  # question, answer, kind, params, value


def global_questions(m: Month) -> list[QA]:
    """Month-level questions; argmax questions are left out when the top is tied."""
    rows, label = m.rows, m.label
    total, n = sum(r.cents for r in rows), len(rows)
    products = {item[0]: item for item in CATALOGUE}
    qa: list[QA] = [
        (
            f"What were the total sales for {label}?",
            f"Total sales for {label} were {money(usd(total))}.",
            "total_sales",
            {},
            usd(total),
        ),
        (
            f"How many transactions were recorded in {label}?",
            f"{n} transactions were recorded.",
            "transaction_count",
            {},
            n,
        ),
        (
            "What was the average deal size across all transactions?",
            f"The average deal size across {n} transactions was {money(usd(total, n))}.",
            "average_deal",
            {},
            usd(total, n),
        ),
    ]
    value = percent(total, m.regional_target)
    qa.append(
        (
            f"What percentage of the regional target of {money(usd(m.regional_target))} did total sales reach?",
            f"Total sales reached {value:.1f}% of the regional target.",
            "target_attainment",
            {},
            value,
        )
    )
    value = percent(total - m.previous_sales, m.previous_sales)
    qa.append(
        (
            f"By what percentage did total sales change compared with the previous month's "
            f"{money(usd(m.previous_sales))}?",
            f"Total sales changed by {value:+.1f}% compared with the previous month.",
            "growth",
            {},
            value,
        )
    )
    by_rep = _sums(rows, lambda r: r.rep)  # reps without sales are not in the data
    top = _top(by_rep)
    if top:
        qa.append(
            (
                "Which salesperson had the highest total sales?",
                f"{m.reps[top][0]} ({top}) had the highest total sales, {money(usd(by_rep[top]))}.",
                "top_rep",
                {},
                {"id": top, "usd": usd(by_rep[top])},
            )
        )
    bottom = _top({rid: -v for rid, v in by_rep.items()})
    if bottom:
        qa.append(
            (
                "Which salesperson had the lowest total sales?",
                f"{m.reps[bottom][0]} ({bottom}) had the lowest total sales, {money(usd(by_rep[bottom]))}.",
                "bottom_rep",
                {},
                {"id": bottom, "usd": usd(by_rep[bottom])},
            )
        )
    met = sum(sales >= m.reps[rid][1] for rid, sales in by_rep.items())
    qa.append(
        (
            "How many of the salespeople in the data met or exceeded their individual monthly target?",
            f"{met} of {len(by_rep)} salespeople met or exceeded their monthly target.",
            "reps_meeting_target",
            {},
            met,
        )
    )
    by_product = _sums(rows, lambda r: r.product)
    top = _top(by_product)
    if top:
        qa.append(
            (
                "Which product generated the most revenue?",
                f"{products[top][1]} ({top}) generated the most revenue, {money(usd(by_product[top]))}.",
                "top_product_revenue",
                {},
                {"id": top, "usd": usd(by_product[top])},
            )
        )
    units: dict[str, int] = {}
    for r in rows:
        units[r.product] = units.get(r.product, 0) + r.quantity
    top = _top(units)
    if top:
        qa.append(
            (
                "Which product sold the most units?",
                f"{products[top][1]} ({top}) sold the most units, {units[top]} in total.",
                "top_product_units",
                {},
                {"id": top, "units": units[top]},
            )
        )
    by_category = _sums(rows, lambda r: products[r.product][2])
    top = _top(by_category)
    if top:
        share = percent(by_category[top], total)
        qa.append(
            (
                "Which product category had the highest sales, and what share of total sales did it account for?",
                f"{top} led with {money(usd(by_category[top]))}, {share:.1f}% of total sales.",
                "top_category",
                {},
                {"category": top, "usd": usd(by_category[top]), "share": share},
            )
        )
    by_city = _sums(rows, lambda r: r.city)
    top = _top(by_city)
    if top:
        qa.append(
            (
                "Which city had the highest sales?",
                f"{top} had the highest sales, {money(usd(by_city[top]))}.",
                "top_city",
                {},
                {"city": top, "usd": usd(by_city[top])},
            )
        )
    new_total = sum(r.cents for r in rows if m.customers[r.customer][1])
    share = percent(new_total, total)
    qa.append(
        (
            "What share of total sales came from new customers?",
            f"New customers accounted for {share:.1f}% of total sales.",
            "new_customer_share",
            {},
            share,
        )
    )
    new_count = len({r.customer for r in rows if m.customers[r.customer][1]})
    qa.append(
        (
            "How many distinct new customers placed orders?",
            f"{new_count} new customers placed orders.",
            "new_customer_count",
            {},
            new_count,
        )
    )
    top = _top({r.order_id: r.cents for r in rows})
    if top:
        cents = next(r.cents for r in rows if r.order_id == top)
        qa.append(
            (
                "What was the largest single transaction?",
                f"The largest transaction was {top}, at {money(usd(cents))}.",
                "largest_transaction",
                {},
                {"order": top, "usd": usd(cents)},
            )
        )
    by_customer = _sums(rows, lambda r: r.customer)
    top = _top(by_customer)
    if top:
        qa.append(
            (
                "Which customer generated the most revenue?",
                f"{m.customers[top][0]} ({top}) generated the most revenue, {money(usd(by_customer[top]))}.",
                "top_customer",
                {},
                {"id": top, "usd": usd(by_customer[top])},
            )
        )
    per_day: dict[str, int] = {}
    for r in rows:
        day = WEEKDAYS[r.date.weekday()]
        per_day[day] = per_day.get(day, 0) + 1
    top = _top(per_day)
    if top:
        qa.append(
            (
                "On which day of the week were the most transactions recorded?",
                f"{top} had the most transactions, {per_day[top]}.",
                "busiest_weekday",
                {},
                {"day": top, "count": per_day[top]},
            )
        )
    by_week = _sums(rows, lambda r: str(r.date.isocalendar()[1]))
    top = _top(by_week)
    if top:
        qa.append(
            (
                "Which week of the year (the WeekOfYear column) had the highest sales?",
                f"Week {top} had the highest sales, {money(usd(by_week[top]))}.",
                "best_week",
                {},
                {"week": int(top), "usd": usd(by_week[top])},
            )
        )
    ranked = sorted(by_rep.values(), reverse=True)
    cumulative, needed = 0, 0
    for value in ranked:
        cumulative, needed = cumulative + value, needed + 1
        if cumulative * 10 >= total * 8:
            break
    qa.append(
        (
            "What is the smallest number of salespeople whose combined sales reach at least 80% of total sales?",
            f"The top {needed} salespeople together reach at least 80% of total sales.",
            "pareto_reps",
            {},
            needed,
        )
    )
    top3 = sum(sorted(by_product.values(), reverse=True)[:3])
    share = percent(top3, total)
    qa.append(
        (
            "What share of total sales came from the three products with the highest revenue?",
            f"The three products with the highest revenue accounted for {share:.1f}% of total sales.",
            "top3_product_share",
            {},
            share,
        )
    )
    return qa


def entity_questions(m: Month) -> list[QA]:
    """Questions about one rep, city, category or product each (only those in the data)."""
    rows = m.rows
    products = {item[0]: item for item in CATALOGUE}
    by_rep = _sums(rows, lambda r: r.rep)
    qa: list[QA] = []
    for rid, sales in sorted(by_rep.items()):
        name, target = m.reps[rid]
        qa.append(
            (
                f"What were the total sales of {name} ({rid})?",
                f"{name} sold {money(usd(sales))} in total.",
                "rep_sales",
                {"id": rid},
                usd(sales),
            )
        )
        value = percent(sales, target)
        qa.append(
            (
                f"What percentage of the monthly target did {name} ({rid}) reach?",
                f"{name} reached {value:.1f}% of the monthly target of {money(usd(target))}.",
                "rep_attainment",
                {"id": rid},
                value,
            )
        )
    for city, sales in sorted(_sums(rows, lambda r: r.city).items()):
        qa.append(
            (
                f"What were the total sales in {city}?",
                f"Sales in {city} totalled {money(usd(sales))}.",
                "city_sales",
                {"city": city},
                usd(sales),
            )
        )
    by_category = _sums(rows, lambda r: products[r.product][2])
    counts = {c: sum(products[r.product][2] == c for r in rows) for c in by_category}
    for category, sales in sorted(by_category.items()):
        qa.append(
            (
                f"What were the total sales of the {category} category?",
                f"The {category} category sold {money(usd(sales))}.",
                "category_sales",
                {"category": category},
                usd(sales),
            )
        )
        qa.append(
            (
                f"What was the average deal size in the {category} category?",
                f"The average {category} deal was {money(usd(sales, counts[category]))}.",
                "category_average_deal",
                {"category": category},
                usd(sales, counts[category]),
            )
        )
    units_sold: dict[str, int] = {}
    for r in rows:
        units_sold[r.product] = units_sold.get(r.product, 0) + r.quantity
    for pid, units in sorted(units_sold.items()):
        qa.append(
            (
                f"How many units of {products[pid][1]} ({pid}) were sold?",
                f"{units} units of {products[pid][1]} were sold.",
                "product_units",
                {"id": pid},
                units,
            )
        )
    return qa


def select_questions(rng: random.Random, m: Month, count: int) -> list[QA]:
    """Month-level questions first (shuffled), then entity questions (shuffled)."""
    first, second = global_questions(m), entity_questions(m)
    rng.shuffle(first)
    rng.shuffle(second)
    return (first + second)[:count]


def build(rng: random.Random, key: str, length: str, p: dict[str, Any]) -> tuple[str, dict]:
    """Prompt and target of one SR instance."""
    m = simulate_month(rng, p)
    chosen = select_questions(rng, m, p["num_questions"])
    questions = "\n".join(f"{k}. {q[0]}" for k, q in enumerate(chosen, 1))
    words = words_request(length)
    prompt = f"""You are a senior business analyst. Write the monthly sales report of the \
{m.region} for {m.label}, based only on the transaction data below.

Context: amounts are in USD. The regional sales target for the month was \
{money(usd(m.regional_target))}; sales in the previous month were \
{money(usd(m.previous_sales))}. Each salesperson's individual monthly target is in the \
SalespersonTarget column.

Transactions ({len(m.rows)} rows, CSV):
```csv
{render_csv(m)}```

Structure the report as: an overall summary; salesperson performance; product and category \
performance; other insights (cities, customers, timing).

The report must answer each of these questions explicitly, with the figures:
{questions}

Length: {words}. Keep close to this length.
Write the report now."""
    target = {
        "region": m.region,
        "month": m.label,
        "currency": "USD",
        "regional_target_usd": usd(m.regional_target),
        "previous_month_usd": usd(m.previous_sales),
        "qa_pairs": [
            {"question": q, "answer": a, "kind": kind, "params": params_, "value": value}
            for q, a, kind, params_, value in chosen
        ],
    }
    return prompt, target
