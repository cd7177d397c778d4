"""Fixtures of the runtime's tests: the priced demo's fake server, and signals that reach the child
processes a test starts."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

from proseval.testing.fake_openai import FakeOpenAIServer
from support.priced_demo import demo_reply


@pytest.fixture
def demo_server() -> Iterator[FakeOpenAIServer]:
    """The fake OpenAI-compatible server answering the priced demo (`support.priced_demo`), its usage
    in cl100k tokens."""
    fake = FakeOpenAIServer(responder=demo_reply, usage="tokens").start_in_thread()
    yield fake
    fake.stop_thread()


@pytest.fixture
def signals_reach_children() -> Iterator[None]:
    """A child inherits an ignored SIGINT (pytest started in the background by a shell), which
    proseval then leaves ignored: the tests that signal a child need it delivered."""
    before = signal.getsignal(signal.SIGINT)
    if before is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)
