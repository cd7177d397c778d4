"""Each generated anchor and target agrees with its material, checked by independent code."""

from __future__ import annotations

import ast
import csv
import io
import random
import re
import string
from fractions import Fraction

import pytest

from proseval.benchmarks.longweave.generators import LENGTHS, generate
from proseval.benchmarks.longweave.generators._rng import official_sample_id, seed_of
from proseval.benchmarks.longweave.generators.params import params
from proseval.benchmarks.longweave.scorers.cf import count_functions

# ---------------------------------------------------------------- SMS


@pytest.mark.parametrize("length", LENGTHS)
def test_sms_target_is_the_true_simulation(length: str) -> None:
    for index in range(5):
        sample = generate("sms", length, index)
        t = sample.target
        assert len(t["input_string"]) == params("sms", length)["input_length"]
        assert t["input_string"] in sample.input
        # the machine shown in the prompt: S{i} on x -> S{(i+x)%3}, output (i+x)%3
        for i in range(3):
            for x in range(3):
                assert f"S{i} | {x} | S{(i + x) % 3} | {(i + x) % 3}" in sample.input
        state, outputs, states = 0, [], []
        for symbol in t["input_string"]:
            state = (state + int(symbol)) % 3
            states.append(f"S{state}")
            outputs.append(str(state))
        assert t["expected_outputs"] == "".join(outputs)
        assert t["expected_states"] == states


# ---------------------------------------------------------------- KVG


@pytest.mark.parametrize("length", LENGTHS)
def test_kvg_reference_holds_the_target_at_the_anchor(length: str) -> None:
    for index in range(5):
        sample = generate("kvg", length, index)
        t = sample.target
        pairs = t["reference_dictionary"]
        assert len(pairs) == t["num_entries"] == params("kvg", length)["num_entries"]
        assert pairs[t["target_index"]] == [t["target_key"], t["target_value"]]
        assert len({k for k, _ in pairs}) == len(pairs)
        for key, value in pairs:
            assert len(key) == 32 and set(key) <= set(string.ascii_uppercase + "_")
            assert len(value) == 32 and set(value) <= set(string.ascii_lowercase + string.digits)
        assert f"'{t['target_key']}': '{t['target_value']}'" in sample.input
        assert f"index {t['target_index']}" in sample.input
        # index rule: round(p/100 * (N-1)) for some p in 5..95
        n = t["num_entries"]
        assert t["target_index"] in {round(p / 100 * (n - 1)) for p in range(5, 100, 5)}


# ---------------------------------------------------------------- PR


@pytest.mark.parametrize("length", LENGTHS)
def test_pr_target_order_restores_the_article(length: str) -> None:
    low, high = params("pr", length)["num_segments"]
    for index in range(4):
        sample = generate("pr", length, index)
        t = sample.target
        segments, shuffled, order = t["segments"], t["shuffled"], t["correct_order"]
        assert low <= len(segments) <= high
        assert len(set(segments)) == len(segments)
        assert sorted(order) == list(range(len(segments)))
        restored = [None] * len(segments)
        for position, original in enumerate(order):
            restored[original] = shuffled[position]
        assert restored == segments
        for position, text in enumerate(shuffled):
            assert f"[[Segment {position}]]\n{text}" in sample.input
        # dated paragraphs are in chronological order in the original
        years = [int(m.group(1)) for s in segments[1:-1] if (m := re.match(r"In (\d{4}),", s))]
        assert len(years) == len(segments) - 2 and years == sorted(years)


def test_pr_doc_words_track_the_length() -> None:
    for length in LENGTHS:
        words = [sum(len(s.split()) for s in generate("pr", length, i).target["segments"]) for i in range(6)]
        target = params("pr", length)["doc_words"]
        assert 0.8 * target <= sum(words) / len(words) <= 1.25 * target, (length, words)


# ---------------------------------------------------------------- CF


def _top_level_functions(code: str) -> list[str]:
    return [node.name for node in ast.parse(code).body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


@pytest.mark.parametrize("length", LENGTHS)
def test_cf_anchor_matches_the_program(length: str) -> None:
    for index in range(6):
        t = generate("cf", length, index).target
        code = t["original_code"]
        # The scorer takes def_count as the original's function count: both counts must agree.
        assert code.count("def ") == t["def_count"] == len(t["function_names"])
        assert count_functions(code, ast_count=True) == t["def_count"]
        if t["syntax_slips"]:
            with pytest.raises(SyntaxError) as error:
                compile(code, "<cf>", "exec")
            assert error.value.lineno == t["syntax_slips"][0]
            for line in t["syntax_slips"]:
                assert code.splitlines()[line - 1].startswith("def ")
        else:
            compile(code, "<cf>", "exec")
            assert _top_level_functions(code) == t["function_names"]


def test_cf_violation_rate_is_close_to_the_knob() -> None:
    sites = violations = 0
    for index in range(30):
        t = generate("cf", "2k", index).target
        sites += t["violation_sites"]
        violations += len(t["violations"])
        last = len(t["original_code"].splitlines()) + 1  # W391 points past the last line
        assert all(1 <= line <= last for line, _ in t["violations"])
    assert sites > 3000
    assert abs(violations / sites - 0.85) < 0.02


def test_cf_compile_rate_falls_with_length() -> None:
    rates = [sum(not generate("cf", length, i).target["syntax_slips"] for i in range(40)) / 40 for length in LENGTHS]
    assert rates[0] > 0.5 and rates[-1] < 0.2 and rates == sorted(rates, reverse=True)


# ---------------------------------------------------------------- BioG


@pytest.mark.parametrize("length", LENGTHS)
def test_biog_sentences_state_their_triples(length: str) -> None:
    low, high = params("biog", length)["num_facts"]
    for index in range(3):
        sample = generate("biog", length, index)
        t = sample.target
        facts = t["facts"]
        assert low <= len(facts) < high + 10  # the last relation may add a few facts
        assert t["target_sentences"] == [f["sentence"] for f in facts]
        triples = [[f["subject"], f["predicate"], f["object"]] for f in facts]
        assert t["triples"] == sorted(triples)
        assert len({tuple(x) for x in triples}) == len(triples)
        for f in facts:
            assert f["subject"] in f["sentence"] and f["object"] in f["sentence"], f
            assert f["sentence"][0].isupper() and f["sentence"].endswith(".")
            assert f"- {f['subject']} - {f['predicate']} - {f['object']}\n" in sample.input + "\n"
        years = [int(y) for f in facts for y in re.findall(r"\b(1[6-9]\d\d|20\d\d)\b", f["object"])]
        assert max(years) <= params("biog", length)["reference_year"]
        assert f"- {t['person']} - " in sample.input


# ---------------------------------------------------------------- NW


@pytest.mark.parametrize("length", LENGTHS)
def test_nw_statements_and_categories(length: str) -> None:
    k = params("nw", length)["num_categories"]
    per = params("nw", length)["statements_per_category"]
    for index in range(4):
        sample = generate("nw", length, index)
        t = sample.target
        assert len(t["categories"]) == k == len(set(t["categories"]))
        assert set(t["rubric"]) == set(t["categories"])
        assert [s["id"] for s in t["statements"]] == list(range(1, k * per + 1))
        for s in t["statements"]:
            assert s["category"] in t["categories"]
            assert s["statement"] != s["correct"]
            assert "{" not in s["statement"] + s["correct"]
            assert f"{s['id']}. {s['statement']}" in sample.input
        for category in t["categories"]:
            assert category.upper() in sample.input


def test_nw_category_subset_follows_the_official_rule() -> None:
    from proseval.benchmarks.longweave.generators._ap_rules import CATEGORIES

    for length in LENGTHS:
        k = params("nw", length)["num_categories"]
        for index in range(5):
            rng = random.Random(seed_of(official_sample_id("nw", length, index)))
            expected = list(CATEGORIES) if k == 10 else rng.sample(list(CATEGORIES), k)
            assert generate("nw", length, index).target["categories"] == expected


# ---------------------------------------------------------------- SR


def _csv_rows(prompt: str) -> list[dict[str, str]]:
    block = prompt.split("```csv\n", 1)[1].split("```", 1)[0]
    return list(csv.DictReader(io.StringIO(block)))


def _cents(text: str) -> int:
    whole, frac = text.split(".")
    return int(whole) * 100 + int(frac)


def _whole(value: Fraction) -> int:
    """Round half up to whole dollars."""
    return int((value + Fraction(1, 2)) // 1)


def _pct(numerator: Fraction, denominator: Fraction) -> Fraction:
    return 100 * Fraction(numerator) / Fraction(denominator)


def _group(rows, key, value=lambda r: _cents(r["TotalSaleAmount"])) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in rows:
        out[r[key]] = out.get(r[key], 0) + value(r)
    return out


def _argmax(d: dict) -> str:
    best = max(d.values())
    winners = [k for k, v in d.items() if v == best]
    assert len(winners) == 1
    return winners[0]


def _recompute(kind: str, params_: dict, rows, target_usd: int, previous_usd: int):
    """Independent computation of each question kind from the parsed CSV rows."""
    amount = lambda r: _cents(r["TotalSaleAmount"])  # noqa: E731  # a one-line helper
    total = sum(amount(r) for r in rows)
    by_rep = _group(rows, "SalespersonID")
    rep_target = {r["SalespersonID"]: int(r["SalespersonTarget"]) * 100 for r in rows}
    if kind == "total_sales":
        return _whole(Fraction(total, 100))
    if kind == "transaction_count":
        return len(rows)
    if kind == "average_deal":
        return _whole(Fraction(total, 100 * len(rows)))
    if kind == "target_attainment":
        return _pct(total, target_usd * 100)
    if kind == "growth":
        return _pct(total - previous_usd * 100, previous_usd * 100)
    if kind in ("top_rep", "bottom_rep"):
        d = by_rep if kind == "top_rep" else {k: -v for k, v in by_rep.items()}
        rep = _argmax(d)
        return {"id": rep, "usd": _whole(Fraction(by_rep[rep], 100))}
    if kind == "reps_meeting_target":
        return sum(by_rep[r] >= rep_target[r] for r in by_rep)
    if kind == "top_product_revenue":
        d = _group(rows, "ProductID")
        top = _argmax(d)
        return {"id": top, "usd": _whole(Fraction(d[top], 100))}
    if kind == "top_product_units":
        d = _group(rows, "ProductID", lambda r: int(r["Quantity"]))
        top = _argmax(d)
        return {"id": top, "units": d[top]}
    if kind == "top_category":
        d = _group(rows, "ProductCategory")
        top = _argmax(d)
        return {"category": top, "usd": _whole(Fraction(d[top], 100)), "share": _pct(d[top], total)}
    if kind == "top_city":
        d = _group(rows, "City")
        top = _argmax(d)
        return {"city": top, "usd": _whole(Fraction(d[top], 100))}
    if kind == "new_customer_share":
        return _pct(sum(amount(r) for r in rows if r["IsNewCustomer"] == "Yes"), total)
    if kind == "new_customer_count":
        return len({r["CustomerID"] for r in rows if r["IsNewCustomer"] == "Yes"})
    if kind == "largest_transaction":
        d = {r["OrderID"]: amount(r) for r in rows}
        top = _argmax(d)
        return {"order": top, "usd": _whole(Fraction(d[top], 100))}
    if kind == "top_customer":
        d = _group(rows, "CustomerID")
        top = _argmax(d)
        return {"id": top, "usd": _whole(Fraction(d[top], 100))}
    if kind == "busiest_weekday":
        d = _group(rows, "DayOfWeek", lambda r: 1)
        top = _argmax(d)
        return {"day": top, "count": d[top]}
    if kind == "best_week":
        d = _group(rows, "WeekOfYear")
        top = _argmax(d)
        return {"week": int(top), "usd": _whole(Fraction(d[top], 100))}
    if kind == "pareto_reps":
        running = 0
        for count, value in enumerate(sorted(by_rep.values(), reverse=True), 1):
            running += value
            if Fraction(running, total) >= Fraction(4, 5):
                return count
    if kind == "top3_product_share":
        return _pct(sum(sorted(_group(rows, "ProductID").values(), reverse=True)[:3]), total)
    if kind == "rep_sales":
        return _whole(Fraction(by_rep[params_["id"]], 100))
    if kind == "rep_attainment":
        return _pct(by_rep[params_["id"]], rep_target[params_["id"]])
    if kind == "city_sales":
        return _whole(Fraction(_group(rows, "City")[params_["city"]], 100))
    if kind == "category_sales":
        return _whole(Fraction(_group(rows, "ProductCategory")[params_["category"]], 100))
    if kind == "category_average_deal":
        cat = params_["category"]
        picked = [amount(r) for r in rows if r["ProductCategory"] == cat]
        return _whole(Fraction(sum(picked), 100 * len(picked)))
    if kind == "product_units":
        return sum(int(r["Quantity"]) for r in rows if r["ProductID"] == params_["id"])
    raise AssertionError(f"unknown kind {kind}")


def _assert_close(expected, got, where) -> None:
    if isinstance(expected, dict):
        assert expected.keys() == got.keys(), where
        for key in expected:
            _assert_close(expected[key], got[key], where)
    elif isinstance(expected, Fraction):  # a percentage, reported to one decimal
        assert abs(Fraction(str(got)) - expected) <= Fraction(1, 20), where
    else:
        assert expected == got, where


@pytest.mark.parametrize("length", LENGTHS)
def test_sr_answers_recompute_from_the_csv(length: str) -> None:
    kinds = set()
    for index in range(4):
        sample = generate("sr", length, index)
        t = sample.target
        rows = _csv_rows(sample.input)
        assert len(rows) == params("sr", length)["num_records"]
        assert len(t["qa_pairs"]) == params("sr", length)["num_questions"]
        assert f"target for the month was USD {t['regional_target_usd']:,}" in sample.input
        for k, qa in enumerate(t["qa_pairs"], 1):
            assert f"{k}. {qa['question']}" in sample.input
            expected = _recompute(qa["kind"], qa["params"], rows, t["regional_target_usd"], t["previous_month_usd"])
            _assert_close(expected, qa["value"], qa)
            money = [
                v
                for v in ([qa["value"]] if not isinstance(qa["value"], dict) else qa["value"].values())
                if isinstance(v, int)
            ]
            for number in money:
                assert f"{number:,}" in qa["answer"] or str(number) in qa["answer"], qa
            kinds.add(qa["kind"])
    assert len(kinds) >= 8
