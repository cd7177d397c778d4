"""Loading Meeseeks item files: small fixtures, malformed input, and the official data."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import pytest

from proseval.benchmarks.meeseeks import data as data_module
from proseval.benchmarks.meeseeks.data import (
    MeeseeksDataError,
    data_files,
    language_of,
    load_file,
    load_items,
    selected_by_official_runner,
)

FIXTURES = Path(__file__).parent / "fixtures" / "data"


def test_loads_all_fixture_files_in_official_order():
    items = load_items(FIXTURES)
    assert [i.id for i in items] == [
        "DATA-T1中文版#0",
        "DATA-T2日语版#0",
        "DATA-T3韩文版#0",
        "DATA-T1.1-英语版#0",
        "DATA-T1.1-英语版#1",
        "DATA-T2德语版#0",
    ]
    assert [i.language for i in items] == ["zh", "ja", "ko", "en", "en", "de"]
    assert [i.dispatcher for i in items] == ["cjk", "cjk", "cjk", "latin", "latin", "latin"]


def test_data_dir_may_be_the_input_data_folder_itself():
    assert len(load_items(FIXTURES / "input_data")) == len(load_items(FIXTURES))


def test_item_fields_are_kept_and_leftovers_dropped():
    item = load_items(FIXTURES, ["zh"])[0]
    assert item.source_file == "asia_data/raw_input/DATA-T1中文版.json"
    assert item.index == 0
    assert item.category == "general_multi"
    assert item.question == "请写三句关于春天的短句。"
    assert item.corresponding_parts == {"短句": "请按python list格式抓取每个短句。"}
    assert item.json_schema is None
    assert not hasattr(item, "model_response")
    second = item.sub_questions[2]
    assert (second.position, second.point_id, second.rule, second.corresponding_part) == (
        2,
        2,
        "each_length:[5,5]",
        "短句",
    )
    assert second.dep == [0]
    assert second.tags == ["0~10字", "精确"]
    assert second.tag_key == "能力项"
    assert item.sub_questions[0].tags == [] and item.sub_questions[0].tag_key is None


def test_variant_tag_keys_are_read_and_recorded():
    ja = load_items(FIXTURES, ["ja"])[0].sub_questions[1]
    assert (ja.tags, ja.tag_key) == (["押韵"], "能力項")
    ko = load_items(FIXTURES, ["ko"])[0].sub_questions[0]
    assert (ko.tags, ko.tag_key) == (["주제제약"], "능력항")


def test_duplicate_point_ids_keep_their_positions():
    subs = load_items(FIXTURES, ["ko"])[0].sub_questions
    assert [(s.position, s.point_id) for s in subs] == [(0, -1), (1, -1)]


def test_schema_item():
    item = load_items(FIXTURES, ["en"])[0]
    assert item.category == "SCHEMA"
    assert item.json_schema["required"] == ["name"]


def test_language_selection():
    assert {i.language for i in load_items(FIXTURES, ["de", "ja"])} == {"de", "ja"}
    with pytest.raises(ValueError, match="xx"):
        load_items(FIXTURES, ["xx"])


def test_official_runner_filter_drops_the_variant_files():
    everything = load_items(FIXTURES)
    kept = load_items(FIXTURES, official_runner_only=True)
    assert [i.id for i in everything if not i.official_runner] == ["DATA-T3韩文版#0"]
    assert [i.id for i in kept] == [i.id for i in everything if i.official_runner]


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("DATA[1.1]中文版.json", "zh"),
        ("DATA-SPECIAL2+3日语版.json", "ja"),
        ("DATA[20.1]日文版.json", "ja"),
        ("DATA[20.1]韩文版.json", "ko"),
        ("DATA-SPECIAL1-印尼语版.json", "id"),
        ("DATA-SPECIAL1.2-英语版.json", "en"),
        ("DATA[3.2]阿语版.json", "ar"),
        ("DATA[3.2]葡语版.json", "pt"),
    ],
)
def test_language_tokens(name, code):
    assert language_of(name) == code


def test_official_runner_tokens():
    assert selected_by_official_runner("DATA[1.1]日语版.json")
    assert not selected_by_official_runner("DATA[20.1]日文版.json")
    assert selected_by_official_runner("DATA-SPECIAL1-印尼语版.json")


def test_file_without_language_token_is_an_error():
    with pytest.raises(MeeseeksDataError, match=r"DATA-X\.json: no language token"):
        language_of("DATA-X.json")


def _write(tmp_path: Path, name: str, content: str) -> Path:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return path


def test_broken_json_names_file_line_and_column(tmp_path):
    path = _write(tmp_path, "DATA-B中文版.json", '[\n  {"category": "x",\n   "question": }\n]')
    with pytest.raises(MeeseeksDataError, match=r"DATA-B中文版\.json: invalid JSON at line 3 column 16"):
        load_file(path)


def test_top_level_must_be_an_array(tmp_path):
    path = _write(tmp_path, "DATA-B英语版.json", '{"question": "q"}')
    with pytest.raises(MeeseeksDataError, match=r"DATA-B英语版\.json: expected a JSON array"):
        load_file(path)


def _item(**overrides):
    item = {
        "category": "general_multi",
        "question": "q",
        "sub_questions": [{"point_id": 0, "question": "s", "rule": None, "dep": []}],
    }
    item.update(overrides)
    return item


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"sub_questions": "none"}, "'sub_questions' must be a list"),
        ({"sub_questions": []}, "at least one sub-question"),
        ({"question": None}, "question"),
        ({"sub_questions": [{"question": "s", "rule": None}]}, "point_id"),
        ({"sub_questions": [{"point_id": 0, "question": "s", "dep": "0"}]}, "dep"),
        ({"sub_questions": ["text"]}, "sub-question 0 is not an object"),
    ],
)
def test_malformed_item_names_file_and_item_index(tmp_path, bad, message):
    path = _write(tmp_path, "DATA-B德语版.json", json.dumps([_item(), _item(**bad)], ensure_ascii=False))
    with pytest.raises(MeeseeksDataError, match=r"DATA-B德语版\.json: item 1: ") as err:
        load_file(path)
    assert message in str(err.value)


def test_missing_layout_is_an_error(tmp_path):
    with pytest.raises(MeeseeksDataError, match="no asia_data/raw_input"):
        load_items(tmp_path)


def test_a_file_is_parsed_once_per_content_in_a_process(tmp_path, monkeypatch):
    """A profile builds the task several times: an unchanged file is not parsed again, wherever it
    lies; a changed one is, and a file that fails fails again."""
    parsed: list[int] = []
    parse = data_module.parse_item
    monkeypatch.setattr(
        data_module, "parse_item", lambda raw, **where: parsed.append(where["index"]) or parse(raw, **where)
    )
    text = json.dumps([_item(question="first"), _item(question="second")])
    first = load_file(_write(tmp_path, "DATA-C德语版.json", text))
    (tmp_path / "copy").mkdir()
    again = load_file(_write(tmp_path / "copy", "DATA-C德语版.json", text))
    assert again == first and [item.question for item in again] == ["first", "second"] and parsed == [0, 1]
    changed = load_file(_write(tmp_path, "DATA-C德语版.json", text.replace("second", "latest")))
    assert [item.question for item in changed] == ["first", "latest"] and parsed == [0, 1, 0, 1]
    broken = _write(tmp_path, "DATA-B德语版.json", json.dumps([_item(), _item(sub_questions=[])]))
    for _ in range(2):
        with pytest.raises(MeeseeksDataError, match="item 1: "):
            load_file(broken)


def test_a_task_makes_only_the_samples_read_from_its_dataset(monkeypatch):
    """A run with a limit (and the planning before it) reads the first samples of thousands."""
    from proseval.benchmarks.meeseeks import task as task_module
    from proseval.registry import get_task

    made: list[str] = []
    to_sample = task_module.to_sample
    monkeypatch.setattr(task_module, "to_sample", lambda item: made.append(item.id) or to_sample(item))
    dataset = get_task("meeseeks", {"data_dir": str(FIXTURES)}).dataset()
    assert [sample.id for sample in itertools.islice(dataset, 2)] == [
        "meeseeks/DATA-T1中文版#0",
        "meeseeks/DATA-T2日语版#0",
    ]
    assert made == ["DATA-T1中文版#0", "DATA-T2日语版#0"]
    assert len(dataset) == 6 and [sample.id for sample in dataset[4:]] == [
        "meeseeks/DATA-T1.1-英语版#1",
        "meeseeks/DATA-T2德语版#0",
    ]


# Counts published in the reference notes (files, items, sub-questions, judge sub-questions).
OFFICIAL_COUNTS = {
    ("zh", True): (76, 768, 3716, 1646),
    ("ja", True): (62, 707, 3490, 1679),
    ("ja", False): (4, 50, 285, 110),
    ("ko", True): (65, 707, 3500, 1704),
    ("ko", False): (4, 50, 285, 110),
    ("en", True): (56, 718, 3582, 1691),
    ("de", True): (60, 745, 3752, 1728),
    ("fr", True): (60, 745, 4028, 1958),
    ("es", True): (60, 745, 3668, 1718),
    ("pt", True): (60, 741, 3727, 1787),
    ("ru", True): (60, 745, 3784, 1864),
    ("ar", True): (57, 710, 3577, 1823),
    ("id", True): (62, 770, 3957, 1806),
}


def test_official_data_counts_per_language(shared_dir):
    data_dir = shared_dir / "data" / "meeseeks"
    items = load_items(data_dir)
    files: dict = {}
    counts: Counter = Counter()
    for item in items:
        key = (item.language, item.official_runner)
        files.setdefault(key, set()).add(item.source_file)
        counts[key + ("items",)] += 1
        counts[key + ("subs",)] += len(item.sub_questions)
        counts[key + ("judge",)] += sum(s.rule is None for s in item.sub_questions)
    observed = {
        key: (len(files[key]), counts[key + ("items",)], counts[key + ("subs",)], counts[key + ("judge",)])
        for key in files
    }
    assert observed == OFFICIAL_COUNTS
    assert len(data_files(data_dir)) == 686
    assert len(items) == 8201
    assert len(load_items(data_dir, official_runner_only=True)) == 8101


def test_official_data_categories_and_schema_items(shared_dir):
    items = load_items(shared_dir / "data" / "meeseeks")
    assert Counter(i.category for i in items) == {
        "general_single": 3533,
        "general_multi": 2977,
        "SCHEMA": 1681,
        "spanish_grammar": 10,
    }
    schema_items = [i for i in items if i.json_schema is not None]
    assert len(schema_items) == 1681
    assert all([s.rule for s in i.sub_questions] == ["SCHEMA:json_schema"] for i in schema_items)
