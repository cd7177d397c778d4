"""Response cache: key sensitivity, hits and misses, errors never cached."""

from __future__ import annotations

import pytest

from proseval.models.base import Completion, GenerateConfig, RetryableError
from proseval.models.scripted import ScriptedModel
from proseval.runtime.cache import ResponseCache, cache_key
from proseval.runtime.executor import RoleModel

IDENTITY = {"provider": "openai-compatible", "model": "m", "base_url": ["http://a/v1"]}
MESSAGES = [{"role": "user", "content": "hello"}]
PARAMS = {"temperature": 0.0, "max_tokens": 10, "seed": 1}


def key(**changes):
    args = {"identity": IDENTITY, "messages": MESSAGES, "params": PARAMS, "sample_id": "s1", "epoch": 0, "turn": 0}
    args.update(changes)
    return cache_key(args.pop("identity"), args.pop("messages"), args.pop("params"), **args)


@pytest.mark.parametrize(
    "change",
    [
        {"identity": {**IDENTITY, "model": "other"}},
        {"identity": {**IDENTITY, "provider": "openai"}},
        {"identity": {**IDENTITY, "base_url": ["http://b/v1"]}},
        {"messages": [{"role": "user", "content": "hello!"}]},
        {"messages": [{"role": "system", "content": "hello"}]},
        {"params": {**PARAMS, "temperature": 0.1}},
        {"params": {**PARAMS, "max_tokens": 11}},
        {"params": {**PARAMS, "seed": 2}},
        {"params": {**PARAMS, "top_p": 0.9}},
        {"params": {**PARAMS, "stop": ["\n"]}},
        {"sample_id": "s2"},
        {"epoch": 1},
        {"turn": 1},
        {"turn": "judge"},
    ],
)
def test_any_change_changes_the_key(change):
    assert key(**change) != key()


def test_key_is_stable_and_order_independent():
    assert key() == key(params=dict(reversed(list(PARAMS.items()))))
    assert len(key()) == 64


def test_sent_params_exclude_timeout_and_unset():
    config = GenerateConfig(temperature=0.5, timeout=3)
    assert config.sent_params() == {"temperature": 0.5}


async def test_hits_and_misses_are_counted(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    model = ScriptedModel("counter", ["one", "two", "three"])
    role = RoleModel("candidate", model, GenerateConfig(), concurrency=2, cache=cache)
    first = await role.generate(MESSAGES, sample_id="s1")
    again = await role.generate(MESSAGES, sample_id="s1")
    other_turn = await role.generate(MESSAGES, sample_id="s1", turn=1)
    assert (first.text, again.text, other_turn.text) == ("one", "one", "two")
    assert again.cached and not first.cached
    assert role.stats.cache_hits == 1 and role.stats.requests == 3
    assert len(model.calls) == 2
    assert cache.stats()["entries"] == 2


async def test_errors_are_never_cached(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    model = ScriptedModel("flaky", [RetryableError("boom"), "fine"])
    role = RoleModel("candidate", model, GenerateConfig(), concurrency=1, cache=cache, max_attempts=1)
    with pytest.raises(RetryableError):
        await role.generate(MESSAGES, sample_id="s1")
    assert cache.stats()["entries"] == 0
    assert (await role.generate(MESSAGES, sample_id="s1")).text == "fine"
    assert cache.stats()["entries"] == 1


def test_cache_persists_across_connections_and_clears(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path)
    cache.put("k", Completion(text="stored", raw={"big": "x"}))
    cache.close()
    reopened = ResponseCache(path)
    hit = reopened.get("k")
    assert hit is not None and hit.text == "stored" and hit.cached and hit.raw is None
    assert reopened.clear() == 1
    assert reopened.get("k") is None


def _stored_keys(path) -> set[str]:
    """The keys another connection sees in the cache file."""
    import sqlite3

    with sqlite3.connect(path) as db:
        return {row[0] for row in db.execute("SELECT key FROM responses")}


async def test_answers_stored_from_the_event_loop_are_written_together_and_soon(tmp_path):
    import asyncio

    from proseval.runtime.cache import FLUSH_AFTER_S

    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path)
    for i in range(3):
        cache.put(f"k{i}", Completion(text=f"answer {i}"))
    assert _stored_keys(path) == set()  # waiting to be written in one transaction
    assert cache.get("k1").text == "answer 1"  # and read from where they wait
    await asyncio.sleep(FLUSH_AFTER_S * 4)
    assert _stored_keys(path) == {"k0", "k1", "k2"}
    cache.put("k3", Completion(text="answer 3"))
    cache.close()  # closing writes what waits
    assert _stored_keys(path) == {"k0", "k1", "k2", "k3"}


async def test_a_full_batch_is_written_at_once(tmp_path):
    from proseval.runtime.cache import FLUSH_AT

    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path)
    for i in range(FLUSH_AT):
        cache.put(f"k{i}", Completion(text="x"))
    assert len(_stored_keys(path)) == FLUSH_AT
    cache.close()


def test_outside_an_event_loop_an_answer_is_written_at_once(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path)
    cache.put("k", Completion(text="x"))
    assert _stored_keys(path) == {"k"}
    cache.close()


async def test_a_write_that_fails_in_the_event_loop_is_raised_by_the_next_store(tmp_path, monkeypatch):
    import asyncio
    import sqlite3

    from proseval.runtime.cache import FLUSH_AFTER_S, CacheError

    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put("k", Completion(text="x"))

    def full(*_args):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(cache, "_flush", full)
    await asyncio.sleep(FLUSH_AFTER_S * 4)
    with pytest.raises(CacheError, match="disk is full"):
        cache.put("k2", Completion(text="y"))


def _store_elsewhere(path, key, text):
    """An answer stored by another process sharing the cache (another connection)."""
    other = ResponseCache(path)
    other.put(key, Completion(text=text))
    other.close()


async def test_look_ups_from_the_event_loop_share_a_snapshot_renewed_soon(tmp_path):
    import asyncio

    from proseval.runtime.cache import READ_WINDOW_S

    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path)
    assert cache.get("k") is None  # opens the shared read transaction
    _store_elsewhere(path, "k", "from another process")
    assert cache.get("k") is None  # the same snapshot: not seen yet
    await asyncio.sleep(READ_WINDOW_S * 4)
    assert cache.get("k").text == "from another process"  # renewed once the window passed
    cache.close()


async def test_a_write_ends_the_shared_snapshot(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path)
    assert cache.get("k") is None
    _store_elsewhere(path, "k", "from another process")
    cache.put("mine", Completion(text="mine"))
    cache.flush()  # a write needs its own transaction; later look-ups see everything stored so far
    assert cache.get("k").text == "from another process"
    assert cache.get("mine").text == "mine"
    cache.close()


async def test_the_shared_snapshot_does_not_hold_back_other_writers(tmp_path):
    """Once the window passed, no read transaction is left open: another process can checkpoint
    the write-ahead log to its start (which an open reader would prevent)."""
    import asyncio
    import sqlite3

    from proseval.runtime.cache import READ_WINDOW_S

    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path)
    _store_elsewhere(path, "k", "x")
    assert cache.get("k").text == "x"
    await asyncio.sleep(READ_WINDOW_S * 4)
    with sqlite3.connect(path) as other:
        busy, _, _ = other.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    assert busy == 0
    cache.close()


def test_outside_an_event_loop_each_look_up_sees_the_latest_answers(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path)
    assert cache.get("k") is None
    _store_elsewhere(path, "k", "x")
    assert cache.get("k").text == "x"
    cache.close()


def test_a_damaged_cache_says_to_delete_it_and_cache_clear_deletes_it(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from proseval.cli import app

    monkeypatch.setenv("PROSEVAL_CACHE_DIR", str(tmp_path))
    damaged = tmp_path / "responses.sqlite"
    damaged.write_bytes(b"not a database, " * 64)
    runner = CliRunner()
    for args in (
        ["cache", "stats"],
        [
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
        ],
    ):
        result = runner.invoke(app, args)
        said = " ".join(result.output.split())
        assert result.exit_code == 1, (args, result.output)
        assert f"the response cache {damaged} is damaged" in said and "proseval cache clear --yes" in said, said
    cleared = runner.invoke(app, ["cache", "clear", "--yes"])
    assert cleared.exit_code == 0 and "deleted the damaged cache" in cleared.output
    assert not damaged.exists()
    assert runner.invoke(app, ["cache", "stats"]).exit_code == 0
