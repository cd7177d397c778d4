"""The `--config` file's schema: the spellings it accepts, and errors that name file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from proseval.core.yamlfile import ConfigFileError, load_yaml_model
from proseval.runtime.config import RunConfig, load_run_config


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "run.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "gen",
    [
        "[judge.temperature=0, candidate.max_tokens=64, 'candidate.extra.chat_template_kwargs={\"think\": false}']",
        "{judge.temperature: 0, candidate.max_tokens: 64, candidate.extra.chat_template_kwargs: {think: false}}",
        "{judge: {temperature: 0}, candidate: {max_tokens: 64, extra: {chat_template_kwargs: {think: false}}}}",
    ],
)
def test_generation_settings_have_three_spellings(tmp_path, gen):
    config = load_run_config(write(tmp_path, f"gen: {gen}\n"))
    assert config.generation() == {
        "judge": {"temperature": 0.0},
        "candidate": {"max_tokens": 64, "extra": {"chat_template_kwargs": {"think": False}}},
    }


def test_name_value_lists_and_mappings_are_the_same(tmp_path):
    as_lists = load_run_config(
        write(
            tmp_path,
            "roles: [judge=openai/gpt-4o]\nbase_url: http://a/v1\n"
            "role_base_url: [judge=http://j1/v1, judge=http://j2/v1]\n"
            "role_concurrency: [judge=4]\nprompts: [judge=j.txt]\n",
        )
    )
    as_mappings = load_run_config(
        write(
            tmp_path,
            "role: {judge: openai/gpt-4o}\nbase_url: [http://a/v1]\n"
            "role_base_url: {judge: [http://j1/v1, http://j2/v1]}\n"
            "role_concurrency: {judge: 4}\nprompt: {judge: j.txt}\n",
        )
    )
    assert as_lists == as_mappings
    assert as_lists.role == {"judge": "openai/gpt-4o"} and as_lists.role_base_url == {
        "judge": ["http://j1/v1", "http://j2/v1"]
    }
    assert as_lists.role_concurrency == {"judge": 4} and as_lists.prompt == {"judge": "j.txt"}


def test_the_cost_keys_read_prices_beside_the_file_and_check_the_limit_and_estimates(tmp_path):
    config = load_run_config(write(tmp_path, "prices: p/prices.yaml\nmax_cost: 2\nestimate_output: [judge=40]\n"))
    assert (config.prices, config.max_cost, config.estimate_output) == (
        str(tmp_path / "p/prices.yaml"),
        2.0,
        {"judge": 40},
    )
    assert load_run_config(write(tmp_path, "prices: /abs/prices.yaml\n")).prices == "/abs/prices.yaml"
    path = write(tmp_path, "max_cost: 0\nestimate_output: {judge: 0}\n")
    with pytest.raises(ConfigFileError) as caught:
        load_run_config(path)
    assert f"{path}:1: max_cost: input should be greater than 0" in str(caught.value)
    assert f"{path}:2: estimate_output.judge: input should be greater than or equal to 1" in str(caught.value)


def test_an_empty_file_and_no_file_set_nothing(tmp_path):
    assert load_run_config(write(tmp_path, "# nothing yet\n")) == RunConfig() == load_run_config(None)


def test_one_spelling_of_a_key(tmp_path):
    path = write(tmp_path, "role: {judge: a/b}\nroles: {judge: a/b}\n")
    with pytest.raises(ConfigFileError, match="give role or roles, not both"):
        load_run_config(path)


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbftask: demo\n")
    assert load_run_config(path).task == "demo"


class Item(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    weight: int = 1


class ItemSet(BaseModel):
    """Another file format on the same loader: errors inside a list name the item's line."""

    model_config = ConfigDict(extra="forbid")
    items: list[Item]


def test_the_loader_serves_other_schemas_with_lines_inside_lists(tmp_path):
    path = write(tmp_path, "items:\n  - name: a\n  - name: b\n    weight: heavy\n  - nmae: c\n")
    with pytest.raises(ConfigFileError) as caught:
        load_yaml_model(path, ItemSet)
    assert str(caught.value) == (
        f"{path}:4: items.1.weight: input should be a valid integer, unable to parse string "
        f"as an integer (got 'heavy'); {path}:5: items.2.name: field required; "
        f"{path}:5: items.2.nmae: unknown key"
    )
    assert caught.value.exit_code == 2
