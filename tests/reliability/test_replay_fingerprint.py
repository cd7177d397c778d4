"""A re-score that only replays the cache is not a new repeat, whatever order its judge's calls
finished in: the replies' digest takes a sample's calls in a fixed order."""

from __future__ import annotations

from proseval.reliability.collect import _replies
from proseval.runtime.records import Call, SampleRecord


def record(calls: list[Call]) -> SampleRecord:
    return SampleRecord(id="s1", epoch=0, input="prompt", target=None, metadata={}, status="ok", calls=calls)


def test_the_same_replies_in_another_completion_order_have_the_same_digest():
    first = Call(role="judge", turn="criterion-1", text='{"score": 7}', cached=True)
    second = Call(role="judge", turn="criterion-2", text='{"score": 4}', cached=True)
    one, replayed = _replies([record([first, second])])
    other, _ = _replies([record([second, first])])
    assert replayed and one == other
    changed, _ = _replies([record([first, second.model_copy(update={"text": '{"score": 5}'})])])
    assert changed != one  # another reply is another digest
