"""Loading: the tiny fixtures, malformed lines, SHA-256 verification, and the official files' counts."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from c3ebench.c3e_fixtures import EN_RECORDS, jsonl
from proseval.benchmarks._shared.c3e import data
from proseval.benchmarks.c3ebench.params import C3EParams
from proseval.benchmarks.c3ebench.task import select_items


def test_tiny_folder_loads_both_languages_with_reference_sources(tiny_dir: Path):
    loaded = data.load_folder(tiny_dir, ["en", "zh"])
    assert data.counts(loaded.items) == {
        "en": {"cloze": 1, "expand": 1, "edit": 1, "end2end": 1},
        "zh": {"cloze": 1, "expand": 1, "edit": 1, "end2end": 1},
    }
    by_id = {item.id: item for item in loaded.items}
    assert by_id["end2end_cn_1200"].reference_source == "hybrid"
    assert by_id["cloze_cn_7"].reference_source == "human"
    assert by_id["cloze_en_1"].reference_source == "unknown"  # no EN list exists
    assert by_id["condition_en_1"].task == "expand" and by_id["condition_en_1"].task_type == "condition"
    assert not any(f.verified for f in loaded.files)  # not the official bytes: accepted, marked unverified
    assert set(loaded.reference_lists) == {"human_ids_zh.txt", "hybrid_ids_zh.txt"}


@pytest.mark.parametrize(
    "line, message",
    [
        ("{not json", "invalid JSON"),
        ('["a list"]', "expected a JSON object"),
        (json.dumps({**EN_RECORDS[0], "task_type": "rewrite"}), "task_type 'rewrite'"),
        (json.dumps({**EN_RECORDS[0], "reference": ""}), "'reference' is empty"),
        (json.dumps({**EN_RECORDS[0], "input": {"prefix": "a"}}), "needs input fields"),
        (json.dumps({**EN_RECORDS[2], "input": {"content": 3, "critique": "x"}}), "input.'content' must be a string"),
        (json.dumps(EN_RECORDS[0]), "duplicate infer_id"),
    ],
)
def test_a_malformed_line_is_reported_with_file_and_line(tiny_dir: Path, line: str, message: str):
    path = tiny_dir / "english_dataset.jsonl"
    path.write_text(jsonl(EN_RECORDS[:2]) + line + "\n", encoding="utf-8")
    with pytest.raises(data.DataFormatError) as caught:
        data.load_folder(tiny_dir, ["en"])
    assert "english_dataset.jsonl:3:" in str(caught.value) and message in str(caught.value)


def test_an_id_on_both_reference_lists_is_refused(tiny_dir: Path):
    (tiny_dir / "hybrid_ids_zh.txt").write_text("cloze_cn_7\n", encoding="utf-8")
    with pytest.raises(data.DataFormatError, match="both the human and the hybrid"):
        data.load_folder(tiny_dir, ["zh"])


def test_a_missing_file_names_the_folder_and_the_option(tmp_path: Path):
    with pytest.raises(FileNotFoundError, match="--data-dir"):
        data.load_folder(tmp_path, ["en"])


def test_selection_by_task_genre_language_and_reference_source(tiny_dir: Path):
    loaded = data.load_folder(tiny_dir, ["en", "zh"])

    def pick(**kw):
        return [i.id for i in select_items(loaded, C3EParams(data_dir=str(tiny_dir), **kw))]

    assert pick(task="edit,cloze", order="file") == ["cloze_en_1", "edit_en_1", "cloze_cn_7", "edit_cn_900"]
    assert pick(genre="散文,speech", order="file") == ["condition_en_1", "cloze_cn_7"]
    assert pick(language="zh", reference_source="hybrid") == ["end2end_cn_1200"]
    # interleaved: every (language, task) group appears before any repeats
    assert [i[:5] for i in pick()][:4] == ["cloze", "condi", "edit_", "end2e"]


def test_official_files_are_verified_with_the_published_counts(official_dir: Path):
    loaded = data.load_folder(official_dir, ["en", "zh"])
    assert all(f.verified for f in loaded.files)
    assert data.counts(loaded.items) == {
        "en": {"cloze": 150, "expand": 99, "edit": 110, "end2end": 99},
        "zh": {"cloze": 200, "expand": 200, "edit": 200, "end2end": 200},
    }
    en_genres = Counter(i.genre for i in loaded.items if i.language == "en")
    assert en_genres == {"essay": 193, "academic_writing": 174, "speech": 35, "fiction": 25, "poetry": 21, "story": 10}
    zh_edit = Counter(i.genre for i in loaded.items if i.language == "zh" and i.task == "edit")
    assert zh_edit == {"散文": 84, "纪实": 76, "诗歌": 27, "小说": 13}
    hybrid = Counter(i.task for i in loaded.items if i.reference_source == "hybrid")
    assert hybrid == {"cloze": 18, "expand": 23, "edit": 19, "end2end": 24}
    assert sum(i.reference_source == "human" for i in loaded.items) == 716
    flags = Counter(f for i in loaded.items for f in i.flags)
    assert flags == {"no_blank_marker": 1, "short_draft": 20}
    assert [i.id for i in loaded.items if "no_blank_marker" in i.flags] == ["cloze_cn_155"]


def test_a_changed_copy_of_the_official_file_is_accepted_but_unverified(official_dir: Path, tmp_path: Path):
    shutil.copy(official_dir / "english_dataset.jsonl", tmp_path / "english_dataset.jsonl")
    with (tmp_path / "english_dataset.jsonl").open("a", encoding="utf-8") as handle:
        handle.write("\n")
    loaded = data.load_folder(tmp_path, ["en"])
    assert len(loaded.items) == 458 and loaded.files[0].verified is False
    assert loaded.files[0].sha256 != data.PINNED_SHA256["en"]


def test_per_task_takes_the_first_items_of_each_language_and_task(official_dir: Path):
    loaded = data.load_folder(official_dir, ["en", "zh"])
    chosen = select_items(loaded, C3EParams(language="en", per_task=5))
    assert data.counts(chosen) == {"en": {"cloze": 5, "expand": 5, "edit": 5, "end2end": 5}}
    assert [i.task for i in chosen[:8]] == ["cloze", "expand", "edit", "end2end"] * 2  # interleaved
    in_file = [i.id for i in loaded.items if i.language == "en" and i.task == "edit"][:5]
    assert [i.id for i in chosen if i.task == "edit"] == in_file
    both = select_items(loaded, C3EParams(per_task=2, task="cloze,end2end", order="file"))
    assert [i.id[:7] for i in both] == ["cloze_e"] * 2 + ["end2end"] * 2 + ["cloze_c"] * 2 + ["end2end"] * 2


def test_reference_source_without_the_id_lists_is_a_clear_error(tiny_dir: Path):
    from proseval.registry import get_task

    (tiny_dir / "hybrid_ids_zh.txt").unlink()
    with pytest.raises(ValueError, match="--reference-source needs the lists human_ids_zh.txt and hybrid_ids_zh.txt"):
        get_task("c3ebench", {"data_dir": str(tiny_dir), "reference_source": "hybrid"})
