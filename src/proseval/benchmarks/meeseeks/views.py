"""What the viewer shows of a Meeseeks sample: the rounds side by side, each with its prompt, the
answer, the word diff from the previous round's answer, every sub-question's check and the
extracted parts. Registered as the task's `views` hook; plain data, the viewer escapes it."""

from __future__ import annotations

from typing import Any

from proseval import kit


def is_rounds(turns: list[Any]) -> bool:
    return bool(turns) and all(isinstance(t, dict) and "round" in t and "answer" in t for t in turns)


def sample_views(record: dict[str, Any]) -> list[kit.views.ViewBlock]:
    turns = (record.get("state") or {}).get("turns") or []
    if not is_rounds(turns):
        return []
    rounds = []
    previous: str | None = None
    for number, turn in enumerate(turns):
        answer = turn["answer"] if isinstance(turn["answer"], str) else ""
        blocks = [
            kit.views.ViewBlock("text", "prompt", {"text": turn.get("prompt"), "folded": True}),
            kit.views.ViewBlock("text", "Answer", {"text": answer}),
        ]
        if previous is not None and previous != answer:
            blocks.append(
                kit.views.ViewBlock(
                    "diff",
                    f"changes from round {number}",
                    {"segments": kit.views.word_diff(previous, answer), "folded": True},
                )
            )
        checks = turn.get("sub_questions") or []
        if checks:
            blocks.append(
                kit.views.ViewBlock(
                    "table",
                    "",
                    {
                        "columns": ["question", "result (1 met, 0 not)", "why"],
                        "class": "checks",
                        "rows": [
                            [
                                q.get("question"),
                                {"text": q.get("result"), "small": q.get("status")},
                                {"text": q.get("reason") or "", "fold": q.get("method") or "why"},
                            ]
                            for q in checks
                        ],
                        "row_class": [q.get("status") for q in checks],
                    },
                )
            )
        if turn.get("parts"):
            blocks.append(kit.views.ViewBlock("text", "extracted parts", {"text": turn["parts"], "folded": True}))
        failed = turn.get("failed")
        rounds.append(
            {
                "title": f"Round {turn['round']}",
                "blocks": blocks,
                "status": None if "failed" not in turn else ("failed" if failed else "scored"),
                "badge": None if "failed" not in turn else f"{failed} failed",
            }
        )
        previous = answer
    return [kit.views.ViewBlock("rounds", "Rounds", {"rounds": rounds})]
