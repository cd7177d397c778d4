"""The CF checker pool: persistent flake8 workers shared by concurrent scoring threads."""

from __future__ import annotations

import os
import signal
from concurrent.futures import ThreadPoolExecutor

from proseval.benchmarks.longweave.budgets import clean_program
from proseval.benchmarks.longweave.generators import generate
from proseval.benchmarks.longweave.scorers import CFConfig, score_cf
from proseval.benchmarks.longweave.scorers.code_checks import CheckerPool, check_sources


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
            assert score_cf(answer, original, original_functions=known, config=config, pool=pool) == \
                score_cf(answer, original, config=config)
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
