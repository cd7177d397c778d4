"""What enters through options, option files and the environment is checked where it enters:
endpoint URLs (scheme, host, port range, no credentials), the size and kind of an option file,
prices and cost limits as finite numbers, and parse errors at the user's own line."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.core.prices import read_prices
from proseval.core.yamlfile import ConfigFileError
from proseval.models.optionfiles import OptionFileError, read_option_file
from proseval.models.spec import parse_model_spec
from proseval.models.urls import EndpointError, check_url
from proseval.runtime.config import load_run_config
from proseval.runtime.sets import load_set
from support.core import refusal_line

SECRET = "hunter2-very-secret"
CREDENTIALS = f"http://alice:{SECRET}@localhost:8000/v1"
OUT_OF_RANGE = [
    ("http://localhost:70000/v1", "port 70000, out of range"),
    ("http://localhost:-5/v1", "port that is not a number ('-5')"),
    ("http://localhost:0/v1", "port 0, out of range"),
]


def invoke(*args: str):
    from proseval.cli import app

    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "400"})


def write(tmp_path: Path, text: str, name: str = "options.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- URLs ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        *OUT_OF_RANGE,
        ("http://localhost:8000:9/v1", "port that is not a number"),
        (CREDENTIALS, "holds a user name or password"),
        (f"https://{SECRET}@api.example.com/v1", "holds a user name or password"),
        ("http://[::1/v1", "is not a URL"),
        ("http://local host/v1", "has a space"),
    ],
)
def test_a_url_no_request_could_be_sent_to_is_refused_by_name_without_its_password(url, problem):
    with pytest.raises(EndpointError) as caught:
        check_url(url, "--base-url")
    message = str(caught.value)
    assert message.startswith("--base-url '") and problem in message
    assert SECRET not in message and "alice" not in message
    assert caught.value.exit_code == 2


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost:8000/v1",
        "https://api.example.com/v1/",
        "http://[::1]:65535/v1",
        "HTTPS://Example.com",
        "http://gpu1:1/v1?api-version=2024",
    ],
)
def test_an_http_url_with_a_host_and_a_port_in_range_passes_as_given(url):
    assert check_url(url, "--base-url") == url


@pytest.mark.parametrize(("url", "problem"), [*OUT_OF_RANGE, (CREDENTIALS, "holds a user name or password")])
def test_run_refuses_a_bad_base_url_before_a_run_folder_is_made(tmp_path, monkeypatch, url, problem):
    monkeypatch.chdir(tmp_path)
    for option in (["--base-url", url], ["--role-base-url", f"candidate={url}"]):
        result = invoke(
            "run",
            "demo",
            "--model",
            "openai-compatible/cand",
            "--role",
            "judge=scripted/echo",
            "-n",
            "1",
            "--no-probe",
            "--display",
            "none",
            "--out",
            tmp_path / "runs",
            *option,
        )
        line = refusal_line(result, 2)
        assert option[0] in line and problem in line
        assert SECRET not in result.output
    assert not (tmp_path / "runs").exists()


def test_config_and_set_files_refuse_a_bad_url_at_its_line(tmp_path):
    config = write(tmp_path, "task: demo\nbase_url:\n  - http://localhost:8000/v1\n  - http://localhost:70000/v1\n")
    with pytest.raises(ConfigFileError, match=rf"{config}:4: base_url.1: 'http://localhost:70000/v1' has port 70000"):
        load_run_config(config)
    config = write(tmp_path, f"task: demo\nrole_base_url: [judge={CREDENTIALS}]\n")
    with pytest.raises(ConfigFileError, match=rf"{config}:2: role_base_url.judge.0: .* holds a user name") as caught:
        load_run_config(config)
    assert SECRET not in str(caught.value)
    for text, line, key in [
        (
            "models:\n  - spec: openai-compatible/m\n    base_url: http://gpu1:-5/v1\ntasks: [{task: demo}]\n",
            3,
            "models.0.base_url.0",
        ),
        (
            f"models: [scripted/m]\ntasks:\n  - task: demo\n    role_base_url: {{judge: '{CREDENTIALS}'}}\n",
            4,
            "tasks.0.role_base_url.judge.0",
        ),
        ("models: [scripted/m]\ntasks: [{task: demo}]\nendpoints:\n  'http://gpu1:99999/v1': 4\n", 3, "endpoints"),
    ]:
        path = write(tmp_path, text, "set.yaml")
        with pytest.raises(ConfigFileError, match=rf"{path}:{line}: {key}: ") as caught:
            load_set(path)
        assert SECRET not in str(caught.value)


@pytest.mark.parametrize(
    ("variable", "spec"),
    [
        ("PROSEVAL_BASE_URL", "openai-compatible/m"),
        ("OPENAI_BASE_URL", "openai/m"),
        ("ANTHROPIC_BASE_URL", "anthropic/m"),
        ("PROSEVAL_GROQ_BASE_URL", "groq/m"),
    ],
)
def test_an_endpoint_from_the_environment_is_checked_naming_its_variable(monkeypatch, variable, spec):
    monkeypatch.setenv(variable, f"http://alice:{SECRET}@localhost:70000/v1")
    with pytest.raises(EndpointError) as caught:
        parse_model_spec(spec)
    assert str(caught.value).startswith(f"{variable} '") and SECRET not in str(caught.value)
    assert parse_model_spec(spec, ["http://localhost:8000/v1"]).base_urls == ("http://localhost:8000/v1",)


def test_run_refuses_a_bad_proseval_base_url_and_a_set_model_with_its_own_url_does_not_read_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PROSEVAL_BASE_URL", "http://localhost:70000/v1")
    result = invoke(
        "run",
        "demo",
        "--model",
        "openai-compatible/cand",
        "--role",
        "judge=scripted/echo",
        "-n",
        "1",
        "--no-probe",
        "--display",
        "none",
        "--out",
        tmp_path / "runs",
    )
    assert "PROSEVAL_BASE_URL 'http://localhost:70000/v1' has port 70000" in refusal_line(result, 2)
    assert not (tmp_path / "runs").exists()
    path = write(
        tmp_path,
        "models:\n  - {spec: openai-compatible/m, base_url: http://localhost:8000/v1}\ntasks: [{task: demo}]\n",
        "set.yaml",
    )
    assert load_set(path).models[0].base_url == ["http://localhost:8000/v1"]


# --- option files: one reader, of limited size ---------------------------------------------------


def test_a_device_is_refused_unread_wherever_an_option_file_is_read(tmp_path):
    for read in (load_run_config, load_set, read_prices):
        with pytest.raises(ConfigFileError, match=r"^/dev/zero: a device, not a file \(reading it might never end\)"):
            read(Path("/dev/zero"))
    result = invoke("run", "demo", "--config", "/dev/zero", "--dry-run")
    assert refusal_line(result, 2).startswith("error: /dev/zero: a device, not a file")


def test_a_file_over_the_limit_is_refused_with_the_limit_in_the_message(tmp_path):
    big = tmp_path / "huge.yaml"
    with open(big, "wb") as file:
        file.truncate(16 * 1024 * 1024 + 1)  # sparse: nothing written
    with pytest.raises(ConfigFileError, match=rf"^{big}: larger than 16 MB, the most an option file may hold"):
        load_run_config(big)
    with pytest.raises(ConfigFileError, match="larger than 16 MB"):
        read_prices(big)


def test_a_pipe_is_read_up_to_the_limit(tmp_path):
    fifo = tmp_path / "options.fifo"
    for content, limit in ((b"task: demo\n", 64), (b"x" * 100, 64)):
        os.mkfifo(fifo)
        writer = threading.Thread(target=fifo.write_bytes, args=(content,))
        writer.start()
        try:
            if len(content) <= limit:
                assert read_option_file(fifo, limit) == content
            else:
                with pytest.raises(OptionFileError, match=r"larger than 64 bytes"):
                    read_option_file(fifo, limit)
        finally:
            writer.join()
            fifo.unlink()


# --- prices and limits: finite numbers, in the same words everywhere ------------------------------


@pytest.mark.parametrize("value", [".inf", ".nan", "-.inf"])
def test_prices_and_cost_limits_must_be_finite_in_the_same_words(tmp_path, monkeypatch, value):
    shown = {".inf": "inf", ".nan": "nan", "-.inf": "-inf"}[value]
    words = f"must be a finite number, not {shown}"
    for key in ("input", "cached_input", "batch_discount"):
        prices = write(tmp_path, f"models:\n  openai/gpt-4o: {{input: 1, output: 2, {key}: {value}}}\n", "prices.yaml")
        if key == "input":
            prices = write(tmp_path, f"models:\n  openai/gpt-4o: {{input: {value}, output: 2}}\n", "prices.yaml")
        with pytest.raises(ConfigFileError, match=rf"{prices}:2: models.openai/gpt-4o.{key}: {words}"):
            read_prices(prices)
    config = write(tmp_path, f"task: demo\nmax_cost: {value}\n")
    with pytest.raises(ConfigFileError, match=rf"{config}:2: max_cost: {words}"):
        load_run_config(config)
    set_file = write(tmp_path, f"models: [scripted/m]\ntasks: [{{task: demo}}]\nmax_cost: {value}\n", "set.yaml")
    with pytest.raises(ConfigFileError, match=rf"{set_file}:3: max_cost: {words}"):
        load_set(set_file)
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "models:\n  scripted/echo: {input: 1, output: 2}\n", "ok-prices.yaml")
    result = invoke(
        "run",
        "demo",
        "--model",
        "scripted/echo",
        "--role",
        "judge=scripted/echo",
        "--prices",
        "ok-prices.yaml",
        f"--max-cost={shown}",
        "--dry-run",
    )
    assert refusal_line(result, 2) == f"error: --max-cost {words}"


# --- parse errors at the user's line -------------------------------------------------------------


def test_a_json_option_file_with_a_control_character_names_its_own_line(tmp_path):
    path = write(
        tmp_path, '{\n  "task": "demo",\n  "model": "scripted/m",\n\n\n\n\n\n  "out": "runs\x02x"\n}\n', "run.json"
    )
    with pytest.raises(ConfigFileError, match=rf"^{path}:9:15: character U\+0002 cannot stand as it is"):
        load_run_config(path)


def test_lines_are_counted_as_an_editor_counts_them(tmp_path):
    # U+2028 is a line break to PyYAML (not to JSON, nor to an editor): later lines would be off by one
    path = write(tmp_path, '{\n  "out": "a\u2028b",\n  "model": "scripted/m",\n  "limit": 0\n}\n', "run.json")
    with pytest.raises(ConfigFileError, match=rf"^{path}:4: limit: "):
        load_run_config(path)
    path = write(tmp_path, '{"out": "a\u2028b",\n "task": "demo",\n "oops": [1,\n}\n', "run.json")
    with pytest.raises(ConfigFileError, match=rf"^{path}:4:1: invalid YAML"):
        load_run_config(path)
    path = write(tmp_path, 'out: "a\u2028b"\ntask: demo\ntask: other\n', "run.yaml")
    with pytest.raises(ConfigFileError, match=rf"^{path}:3: task: given twice \(also on line 2\)"):
        load_run_config(path)


def test_every_command_taking_an_endpoint_or_a_limit_checks_it_the_same_way(tmp_path, monkeypatch):
    """profile's --base-url and --role-base-url, score's --base-url (through the roles' check), and
    --max-cost on resume: the same refusal as run's, before anything is made."""
    monkeypatch.chdir(tmp_path)
    bad_port = invoke(
        "profile",
        "openai-compatible/x",
        "--judge",
        "openai-compatible/j",
        "--base-url",
        "http://localhost:70000/v1",
        "-o",
        str(tmp_path / "p"),
        "--dry-run",
    )
    assert bad_port.exit_code == 2 and "has port 70000, out of range" in bad_port.output
    password = invoke(
        "profile",
        "openai-compatible/x",
        "--judge",
        "openai-compatible/j",
        "--base-url",
        "http://localhost:8000/v1",
        "--role-base-url",
        "judge=http://ann:secret@h:1/v1",
        "-o",
        str(tmp_path / "p"),
        "--dry-run",
    )
    assert password.exit_code == 2 and "user name or password" in password.output and "secret" not in password.output
    assert not (tmp_path / "p").exists()
    run = invoke(
        "run",
        "demo",
        "-m",
        "scripted/echo",
        "-r",
        "judge=scripted/echo",
        "-n",
        "1",
        "-o",
        str(tmp_path / "runs"),
        "--display",
        "none",
    )
    assert run.exit_code == 0, run.output
    (folder,) = (tmp_path / "runs").iterdir()
    score = invoke("score", str(folder), "-r", "judge=openai-compatible/j", "--base-url", "http://h:0/v1")
    assert score.exit_code == 2 and "out of range" in score.output
    prices = write(tmp_path, "currency: USD\nmodels:\n  scripted/echo: {input: 1, output: 1}\n", "prices.yaml")
    limit = invoke("resume", str(folder), "--prices", str(prices), "--max-cost", "inf")
    assert limit.exit_code == 2 and "--max-cost must be a finite number, not inf" in limit.output


def test_the_model_rules_file_is_read_through_the_option_file_reader(monkeypatch):
    from proseval.errors import UsageError
    from proseval.models.families import rules_for

    monkeypatch.setenv("PROSEVAL_MODEL_RULES", "/dev/zero")
    with pytest.raises(UsageError, match="a device, not a file"):
        rules_for("openai", "gpt-4o")


def test_a_set_file_entry_of_the_wrong_shape_is_named_in_the_projects_words(tmp_path):
    path = write(tmp_path, "models: [{spec: scripted/echo}]\ntasks: [demo]\n", "set.yaml")
    result = invoke("run-set", path, "--dry-run")
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and "set.yaml:2: tasks.0: input should be a mapping of names to values" in said
    assert "instance of" not in said and "SetTask" not in said


def test_json_errors_give_no_position_inside_a_line_that_reads_as_the_files():
    """A JSON Lines reader names the file's line; pydantic's 'at line 2 column 0' (inside that one
    line) would contradict it."""
    from pydantic import BaseModel, ValidationError

    from proseval.errors import describe_validation_error

    class Line(BaseModel):
        text: str

    with pytest.raises(ValidationError) as caught:
        Line.model_validate_json('{"text": "a\nb"}')
    said = describe_validation_error(caught.value, one_line=True)
    assert said.startswith("not valid JSON (control character") and "line 2" not in said and "column" not in said
    whole = describe_validation_error(caught.value)  # a whole JSON file: the position is the file's
    assert "at line 2 column" in whole
