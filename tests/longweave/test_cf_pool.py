"""The CF checker pool: persistent flake8 workers shared by concurrent scoring threads."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from proseval.benchmarks.longweave.budgets import clean_program
from proseval.benchmarks.longweave.generators import generate
from proseval.benchmarks.longweave.scorers import CFConfig, score_cf
from proseval.benchmarks.longweave.scorers.code_checks import CheckerPool, check_sources, check_sources_under


def sources() -> list[str]:
    polluted = [generate("cf", "1k", i).target["original_code"] for i in range(6)]
    clean = [clean_program(generate("cf", "1k", i)) for i in range(3)]
    return [*polluted, *clean, "def broken(:\n    pass\n", "x = 1\n"]


def test_concurrent_pool_checks_equal_in_process_checks() -> None:
    settings = CFConfig().flake8_settings()
    expected = check_sources(sources(), settings, processes=1)
    pool = CheckerPool(settings, 2)
    try:
        with ThreadPoolExecutor(max_workers=6) as threads:
            got = list(threads.map(pool.check, sources()))
        assert got == expected
        assert len(pool._workers) == 2  # never more workers than processes
        assert any(c.violations for c in got) and any(c.compile_error for c in got)
    finally:
        pool.close()
    assert not os.path.exists(pool._folder)


def test_a_check_in_process_does_not_depend_on_the_settings_checked_before_it() -> None:
    """pep8-naming keeps the selection it was last given: a check without naming in between must not
    take the naming codes out of the next check with them (in this process or in one batch)."""
    with_naming, without = CFConfig().flake8_settings(), CFConfig(count_naming=False).flake8_settings()
    first = check_sources(sources(), with_naming)
    assert any(code.startswith("N8") for check in first for code in check.violations or {})
    check_sources(sources(), without)
    assert check_sources(sources(), with_naming) == first
    both = check_sources_under(sources(), [without, with_naming])
    assert both[1] == first
    assert not any(code.startswith("N8") for check in both[0] for code in check.violations or {})


def test_a_dead_worker_fails_one_file_and_is_replaced() -> None:
    pool = CheckerPool(CFConfig().flake8_settings(), 1)
    try:
        first = pool.check("x = 1\n")
        (worker,) = pool._workers
        os.kill(worker._process.pid, signal.SIGKILL)
        worker._process.wait()
        failed = pool.check("x = 1\n")
        assert failed.compile_error is not None and failed.compile_error.startswith("check failed")
        assert pool.check("x = 1\n") == first
    finally:
        pool.close()


def test_score_cf_with_a_pool_matches_the_in_process_score() -> None:
    config = CFConfig()
    pool = CheckerPool(config.flake8_settings(), 1)
    try:
        for index in range(3):
            sample = generate("cf", "1k", index)
            answer = "```python\n" + clean_program(sample) + "\n```"
            original = sample.target["original_code"]
            assert score_cf(answer, original, config=config, pool=pool) == score_cf(answer, original, config=config)
            # What the run path does: the generated program's recorded count, no parse of it.
            known = sample.target["def_count"]
            assert score_cf(answer, original, original_functions=known, config=config, pool=pool) == score_cf(
                answer, original, config=config
            )
    finally:
        pool.close()


def test_parsing_runs_in_one_thread_at_a_time(monkeypatch) -> None:
    """CPython 3.11's AST constructor is not thread-safe (a rare SystemError), so the scorer's
    own parses in concurrent scoring threads must not overlap."""
    import ast
    import threading
    import time

    from proseval.benchmarks.longweave.scorers import code_checks

    real_parse, inside, most = ast.parse, [0], [0]
    guard = threading.Lock()

    def slow_parse(*args, **kwargs):
        with guard:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.01)
        try:
            return real_parse(*args, **kwargs)
        finally:
            with guard:
                inside[0] -= 1

    monkeypatch.setattr(code_checks.ast, "parse", slow_parse)
    with ThreadPoolExecutor(max_workers=6) as threads:
        errors = list(threads.map(lambda code: code_checks.parse_and_compile(code)[1], ["x = 1\n"] * 12))
    assert errors == [None] * 12 and most[0] == 1


def test_the_workers_count_the_original_programs_functions() -> None:
    from proseval.benchmarks.longweave.scorers.cf import count_functions

    originals = ["def a():\n    pass\n\ndef b():\n    pass\n", "def broken(\n    pass\ndef c():\n  x\n", ""]
    pool = CheckerPool(CFConfig().flake8_settings(), 1)
    try:
        counted = [pool.check("x = 1\n", original).original_functions for original in originals]
        plain = pool.check("x = 1\n").original_functions
    finally:
        pool.close()
    assert counted == [count_functions(o) for o in originals] == [2, 2, 0]
    assert plain is None


NOQA_SOURCES = {
    "none.py": "import os\nl = 1\n",
    "blanket.py": "import os  # noqa\nimport sys\n",
    "specific.py": "import os  # NOQA: F401\nimport sys  # noqa: E501\nl = 1  # NoQa:E741\n",
    # A noqa comment after a multi-line string covers every line of it (flake8 maps each line
    # of a statement to the whole statement before looking for the comment).
    "multiline.py": 'text = """\n' + "word " * 30 + '\n"""  # noqa: E501\nother = """\n' + "word " * 30 + '\n"""\n',
    "noqa_in_a_string.py": 'note = "# noqa"\nimport os\n',
}


def test_inline_noqa_is_honoured_as_plain_flake8_does(tmp_path) -> None:
    """The checker skips flake8's second tokenization when a file has no ``noqa`` at all; files
    with one must still get exactly the counts of a plain ``flake8`` command line."""
    settings = CFConfig().flake8_settings()
    for name, source in NOQA_SOURCES.items():
        (tmp_path / name).write_text(source, encoding="utf-8")
    printed = subprocess.run(
        [sys.executable, "-m", "flake8", *settings.argv(), "--format=%(path)s %(code)s", *NOQA_SOURCES],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert printed.returncode in (0, 1), printed.stderr
    expected: dict[str, Counter[str]] = {name: Counter() for name in NOQA_SOURCES}
    for line in printed.stdout.splitlines():
        name, code = line.split()
        expected[name][code] += 1
    checks = check_sources(list(NOQA_SOURCES.values()), settings)
    assert {name: dict(expected[name]) for name in NOQA_SOURCES} == {
        name: check.violations for name, check in zip(NOQA_SOURCES, checks)
    }
    # The cases are not vacuous: something is suppressed, something is not.
    assert expected["blanket.py"] == {"F401": 1} and expected["none.py"] == {"F401": 1, "E741": 1}
    assert expected["multiline.py"]["E501"] == 1  # the second string's long line only
