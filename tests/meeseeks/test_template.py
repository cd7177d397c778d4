"""Template generator: safe placeholder arithmetic, expansion order, validation of the items."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proseval.benchmarks.meeseeks.data import MeeseeksDataError, load_file, parse_item
from proseval.benchmarks.meeseeks.template import (
    MAX_ITEMS,
    PlaceholderError,
    TemplateError,
    data_file_name,
    evaluate,
    expand_template,
    load_template,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "meeseeks_template.json"


def template(parameters: dict, question: str = "Write {n} lines.", rule: str = "item_count:[{n},{n}]", **extra) -> dict:
    return {
        "name": "t",
        "language": "en",
        "parameters": parameters,
        "item": {
            "category": "general_multi",
            "question": question,
            "corresponding_parts": {"lines": "every line as a python list"},
            "sub_questions": [
                {"point_id": 0, "question": "lines given?", "rule": None, "dep": []},
                {
                    "point_id": 1,
                    "question": "count?",
                    "corresponding_part": "lines",
                    "rule": rule,
                    "dep": [0],
                    "能力项": "单元数量合规",
                },
            ],
        },
        **extra,
    }


# ------------------------------------------------------------------ expressions


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("n", 3),
        ("n*2", 6),
        ("n+1", 4),
        ("(n + 1) * 2", 8),
        ("n - 5", -2),
        ("-n", -3),
        ("n/2", 1.5),
        ("n//2", 1),
        ("n % 2", 1),
        ("n ** 2", 9),
        ("2 ** -n", 0.125),
        ("min(n, 4)", 3),
        ("max(n, 4, 10)", 10),
        ("round(n / 4)", 1),
        ("round(n / 7, 2)", 0.43),
        ("n * 0.5 + m", 11.5),
    ],
)
def test_allowed_arithmetic(expression, expected):
    assert evaluate(expression, {"n": 3, "m": 10}) == expected


def test_a_bare_string_parameter():
    assert evaluate("topic", {"topic": "the sea"}) == "the sea"


@pytest.mark.parametrize(
    ("expression", "why"),
    [
        ("__import__('os')", "only calls to min, max, round"),
        ("__import__('os').system('true')", "only calls to min, max, round"),
        ("n.__class__", "Attribute is not allowed"),
        ("n.real", "Attribute is not allowed"),
        ("open(n)", "only calls to min, max, round"),
        ("eval('1') + n", "only calls to min, max, round"),
        ("(lambda: n)()", "only calls to"),
        ("[n][0]", "Subscript is not allowed"),
        ("[n]", "List is not allowed"),
        ("n if n else 1", "IfExp is not allowed"),
        ("n == 3", "Compare is not allowed"),
        ("n and 1", "BoolOp is not allowed"),
        ("~n", "UnaryOp is not allowed"),
        ("n << 2", "BinOp is not allowed"),
        ("'ab' * n", "constant is not a number"),
        ("topic * 3", "left operand is not a number"),
        ("-topic", "operand is not a number"),
        ("max(topic, n)", "argument of max() is not a number"),
        ("n + True", "constant is not a number"),
        ("n + 1j", "constant is not a number"),
        ("round(n, ndigits=2)", "plain positional arguments"),
        ("max(*[n, 1])", "plain positional arguments"),
        ("max(n)", "at least two numbers"),
        ("round(n, 0.5)", "number of digits"),
        ("round(n, -10**9)", "number of digits"),
        ("n ** 65", "exponent 65 exceeds 64"),
        ("9 ** 9 ** n", "exceeds 64"),
        ("n ** 64", "out of range"),
        ("(n * 10) ** 20 ** 1", "out of range"),
        ("n * 1e308 * 10", "out of range"),
        ("n / 0", "arithmetic error"),
        ("n % 0", "arithmetic error"),
        ("(-n) ** 0.5", "fractional power"),
        ("m", "unknown name 'm'"),
        ("__builtins__", "unknown name '__builtins__'"),
        ("8", "uses no parameter"),
        ("2,4", "uses no parameter"),
        ("min(1, 2)", "uses no parameter"),
        ("n +", "not a valid expression"),
        ("n; import os", "not a valid expression"),
        ("(" * 150 + "n" + ")" * 150, "longer than 200"),
    ],
)
def test_rejected_expressions(expression, why):
    with pytest.raises(PlaceholderError, match=why.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")):
        evaluate(expression, {"n": 3, "topic": "sea"})


# ------------------------------------------------------------------ strings and expansion


def test_cartesian_order_last_parameter_fastest_and_ids():
    items = expand_template(template({"n": [2, 3], "topic": ["sea", "rain"]}, question="{n} lines on {topic}"))
    assert [i["question"] for i in items] == ["2 lines on sea", "2 lines on rain", "3 lines on sea", "3 lines on rain"]
    assert [i["data_id"] for i in items] == ["t#0", "t#1", "t#2", "t#3"]
    assert items[3]["sub_questions"][1]["rule"] == "item_count:[3,3]"


def test_inclusive_ranges_in_both_directions():
    up = expand_template(template({"n": {"first": 2, "last": 6, "step": 2}}))
    down = expand_template(template({"n": {"first": 5, "last": 1, "step": -2}}))
    assert [i["question"] for i in up] == ["Write 2 lines.", "Write 4 lines.", "Write 6 lines."]
    assert [i["question"] for i in down] == ["Write 5 lines.", "Write 3 lines.", "Write 1 lines."]


def test_text_substitution_braces_and_types():
    tpl = template(
        {"n": [4], "topic": ["{n} {{x}}"]}, question="{{literal}} {topic}: about {n/2} or {n/8} lines, i.e. {n*1.0}"
    )
    tpl["item"]["json_schema"] = {"type": "array", "maxItems": "{n}", "minItems": "{n/2}", "x": "{n/8}", "t": "{topic}"}
    (item,) = expand_template(tpl)
    # inserted values are not scanned again; integral floats are written without ".0"
    assert item["question"] == "{literal} {n} {{x}}: about 2 or 0.5 lines, i.e. 4"
    assert item["json_schema"] == {"type": "array", "maxItems": 4, "minItems": 2, "x": 0.5, "t": "{n} {{x}}"}


def test_keys_are_substituted():
    tpl = template({"n": [2]}, question="q")
    tpl["item"]["corresponding_parts"] = {"part{n}": "extract"}
    tpl["item"]["sub_questions"][1]["corresponding_part"] = "part{n}"
    (item,) = expand_template(tpl)
    assert item["corresponding_parts"] == {"part2": "extract"}
    assert item["sub_questions"][1]["corresponding_part"] == "part2"


def test_limit_takes_the_first_combinations():
    items = expand_template(template({"n": [1, 2, 3, 4, 5]}, limit=2))
    assert [i["data_id"] for i in items] == ["t#0", "t#1"]
    assert [i["data_id"] for i in expand_template(template({"n": [1, 2, 3]}), limit=9)] == ["t#0", "t#1", "t#2"]


def test_seeded_sample_is_reproducible_and_in_product_order():
    tpl = template({"n": {"first": 1, "last": 40}, "m": [1, 2, 3]}, limit=6, seed=11)
    first = [i["data_id"] for i in expand_template(tpl)]
    assert first == [i["data_id"] for i in expand_template(tpl)]
    indices = [int(d.split("#")[1]) for d in first]
    assert len(set(indices)) == 6 and indices == sorted(indices) and all(0 <= k < 120 for k in indices)
    # the index decodes to the bindings: index = (n - 1) * 3 + (m - 1)
    for item, k in zip(expand_template(tpl), indices):
        assert item["question"] == f"Write {k // 3 + 1} lines."


def test_sampling_from_a_huge_range_does_not_enumerate_it():
    items = expand_template(template({"n": {"first": 1, "last": 10**12}}), limit=3, seed=5)
    assert len(items) == 3 and all(1 <= int(i["question"].split()[1]) <= 10**12 for i in items)


def test_seed_argument_without_limit_is_an_error():
    with pytest.raises(TemplateError, match="seed is only used together with limit"):
        expand_template(template({"n": [1, 2]}), seed=4)


def test_too_many_combinations_need_a_limit():
    big = template({"n": {"first": 1, "last": MAX_ITEMS + 1}})
    with pytest.raises(TemplateError, match="set a limit"):
        expand_template(big)
    assert len(expand_template(big, limit=3)) == 3


# ------------------------------------------------------------------ errors name file and placeholder


def test_error_names_file_field_and_placeholder():
    tpl = template({"n": [3]}, rule="item_count:[{n*},{n}]")
    with pytest.raises(TemplateError) as info:
        expand_template(tpl, source="poems.json")
    message = str(info.value)
    assert message.startswith("poems.json: item 0: ")
    assert "item.sub_questions[1].rule" in message and "{n*}" in message and "n=3" in message


def test_malicious_placeholder_in_a_template_is_rejected():
    tpl = template({"n": [3]}, question="Write {__import__('os').system('echo hi')} lines")
    with pytest.raises(TemplateError, match=r"evil\.json: item 0: item\.question: placeholder .*only calls to"):
        expand_template(tpl, source="evil.json")


@pytest.mark.parametrize(
    ("question", "why"),
    [
        (r"match ^\d{8}$", "uses no parameter"),
        ('return {"name": "x"} and {n}', "not a valid expression"),
        ("unclosed {n", "unclosed"),
        ("stray } brace {n}", "single '}'"),
        ("empty {}", "not a valid expression"),
    ],
)
def test_stray_braces_are_errors(question, why):
    with pytest.raises(TemplateError, match=why):
        expand_template(template({"n": [3]}, question=question), source="x.json")


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"language": "xx"}, "language 'xx'"),
        ({"surprise": 1}, "surprise"),
        ({"parameters": {"min": [1]}}, "parameter name 'min'"),
        ({"parameters": {"_n": [1]}}, "parameter name '_n'"),
        ({"parameters": {"n": []}}, "no values"),
        ({"parameters": {"n": [True]}}, "parameters.n"),
        ({"parameters": {"n": {"first": 1, "last": 5, "step": -1}}}, "never goes"),
        ({"parameters": {"n": {"first": 1, "last": 5, "step": 0}}}, "never goes"),
        ({"seed": 3}, "seed is only used together with limit"),
        ({"limit": 0}, "limit"),
        ({"name": "a b"}, "name"),
    ],
)
def test_invalid_templates(changes, why):
    tpl = template({"n": [3]})
    tpl.update(changes)
    with pytest.raises(TemplateError, match=f"^bad.json: .*{why}"):
        expand_template(tpl, source="bad.json")


def test_expanded_items_are_checked_with_the_item_model():
    tpl = template({"n": [3]})
    tpl["item"]["sub_questions"] = []
    with pytest.raises(MeeseeksDataError, match="(?s)^bad.json: item 0: .*at least one sub-question"):
        expand_template(tpl, source="bad.json")


def test_unknown_dependency_and_missing_part_are_errors():
    tpl = template({"n": [3]})
    tpl["item"]["sub_questions"][1]["dep"] = [7]
    with pytest.raises(MeeseeksDataError, match=r"bad.json: item 0, sub-question 1: .*unknown point_id\(s\) \[7\]"):
        expand_template(tpl, source="bad.json")
    tpl = template({"n": [3]})
    tpl["item"]["sub_questions"][1]["corresponding_part"] = "verses"
    with pytest.raises(MeeseeksDataError, match="sub-question 1: rule 'item_count:.3,3.' needs a corresponding_part"):
        expand_template(tpl, source="bad.json")


def test_load_template_names_the_file_and_line(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{\n  "name": "x",\n  oops\n}', encoding="utf-8")
    with pytest.raises(TemplateError, match=r"broken\.json: invalid JSON at line 3"):
        load_template(path)


# ------------------------------------------------------------------ the data loader reads the result


def test_example_template_expands_to_loadable_items(tmp_path):
    spec = load_template(EXAMPLE)
    items = expand_template(spec, source=EXAMPLE.name)
    assert len(items) == 8  # n: 2 values x product: 2 values x words: 4, 8
    assert items[0]["question"].startswith("Write 3 slogans for a bicycle. Each slogan must have between 4 and 8 words")
    assert items[7]["sub_questions"][3]["rule"] == "each_length:[8,16]"
    assert items[7]["sub_questions"][2]["rule"] == "item_count:[5,5]"

    path = tmp_path / data_file_name(spec.name, spec.language)
    assert path.name == "DATA-slogan_lines英语版.json"
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    loaded = load_file(path)
    assert len(loaded) == 8 and {i.language for i in loaded} == {"en"}
    assert loaded[5].sub_questions[3].tags == ["范围"]
    assert loaded[5].sub_questions[3].dep == [0]


@pytest.mark.parametrize("language", ["zh", "ja", "ko", "en", "de", "fr", "es", "pt", "ru", "ar", "id"])
def test_file_names_carry_every_language(language, tmp_path):
    tpl = template({"n": [2]})
    tpl["language"] = language
    items = expand_template(tpl)
    assert parse_item(items[0], source_file="x", index=0, language=language).language == language
    path = tmp_path / data_file_name("t", language)
    path.write_text(json.dumps(items), encoding="utf-8")
    assert load_file(path)[0].language == language
