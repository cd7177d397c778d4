"""The Meeseeks feedback loop for one item: answer → extract → check → feedback, round after round.

Model calls go through the run's `SampleContext` (roles `candidate`, `extractor`, `judge`);
model-written extraction code runs only in `proseval.sandbox`. Every round is recorded as a
plain dict in `State.turns` (see `run_item`), from which the task's scores and per-round
metrics are computed.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from proseval.benchmarks.meeseeks.data import TAG_KEY, MeeseeksItem, SubQuestion
from proseval.benchmarks.meeseeks.deps import (
    DEPENDENCIES_FAILED,
    DependencyGraph,
    apply_dependencies,
)
from proseval.benchmarks.meeseeks.extract import (
    EXTRACTION_FAILED,
    SPLIT_NAMESPACE,
    Extraction,
    checker_input,
    classify_part,
    code_extraction_prompt,
    code_from_answer,
    extraction_from_sandbox,
    json_field,
    list_from_response,
    llm_extraction_prompt,
    parse_list_answer,
)
from proseval.benchmarks.meeseeks.feedback import (
    CheckOutcome,
    first_round_messages,
    needs_another_round,
    next_round_messages,
)
from proseval.benchmarks.meeseeks.params import MeeseeksParams
from proseval.benchmarks.meeseeks.rules.base import RuleContext
from proseval.benchmarks.meeseeks.rules.registry import evaluate_rule, find_spec
from proseval.benchmarks.meeseeks.rules.schema import schema_points
from proseval.kit import (
    ContextOverflowError,
    ModelError,
    PromptTemplate,
    SampleContext,
    State,
    ask_until,
)
from proseval.kit.sandbox import SandboxLimits, run_function_async

# --- the Yes/No judge (proseval's own wording; the official output format) -----------------

JUDGE_TEMPLATE = PromptTemplate(
    "judge",
    """\
You check one requirement of an answer written for a task.

[Task]
{input}

[Answer]
{output}

[Requirement to check]
{question}

Consider only this requirement, nothing else about the answer. Reply with exactly two lines:
分析：<your short analysis>
判断：是   (if the answer meets the requirement)   or   判断：否   (if it does not)
""",
    ("input", "output", "question"),
    description="the Yes/No judge of one requirement (reply format: 判断：是/否)",
)

_VERDICT = re.compile(r"判断\s*[:：]\s*(是|否)")
_VERDICT_HEAD = re.compile(r"判断：是|判断：否")


def judge_prompt(task_text: str, answer: str, requirement: str, template: PromptTemplate = JUDGE_TEMPLATE) -> str:
    return template.render(input=task_text, output=answer, question=requirement)


def parse_judge_verdict(reply: str, *, compat: str = "fixed") -> int | None:
    """1 (是), 0 (否) or None (no verdict line).

    fixed: the last ``判断`` line, full-width or ASCII colon. head: the first ``判断：是/否``
    with the full-width colon only, and no verdict counts as 0, as in the reference.
    """
    if compat == "head":
        match = _VERDICT_HEAD.search(reply)
        return 0 if match is None else int("是" in match.group(0))
    found = _VERDICT.findall(reply)
    return None if not found else int(found[-1] == "是")


# --- one round's evaluation ------------------------------------------------------------------


@dataclass(frozen=True)
class PartResult:
    """An extracted part: what the checkers read (None = fail as "extraction failed") and the record."""

    items: list[str] | None
    undecided: bool
    record: dict[str, Any]


def tag_string(sq: SubQuestion, compat: str) -> str | None:
    """The raw capability tag string of a sub-question; head ignores the ja/ko tag keys."""
    if sq.tag_key is None or (compat == "head" and sq.tag_key != TAG_KEY):
        return None
    return "、".join(sq.tags)


# Extraction paths whose failure is the extractor's (its answer or its code), not the candidate's.
EXTRACTOR_KINDS = frozenset({"code", "llm"})


class RoundEvaluator:
    """Evaluates one answer of one item: extraction, rule checks, judge, dependencies."""

    def __init__(
        self, item: MeeseeksItem, graph: DependencyGraph, ctx: SampleContext, params: MeeseeksParams, round_no: int
    ):
        self.item = item
        self.graph = graph
        self.ctx = ctx
        self.params = params
        self.round_no = round_no
        self.compat = params.compat
        self.limits = SandboxLimits(
            wall_seconds=params.sandbox_seconds, memory_bytes=params.sandbox_memory_mb * 1024 * 1024
        )
        self.rule_ctx = RuleContext(language=item.language, json_schema=item.json_schema, compat=params.compat)

    async def _ask(self, role: str, prompt: str, turn: str) -> str:
        """One extractor or judge call, sent as the reference sends it (empty system message)."""
        completion = await self.ctx.generate(role, first_round_messages(prompt), turn=f"r{self.round_no}/{turn}")
        return completion.text

    async def extract(self, key: str, answer: str, task_text: str) -> PartResult:
        instruction = self.item.corresponding_parts.get(key)
        if instruction is None:
            return PartResult(
                None, True, {"failure": "missing_part", "detail": f"no corresponding_parts entry named {key!r}"}
            )
        part = classify_part(instruction)
        kind = "llm" if part.kind == "code" and self.params.extraction == "general" else part.kind
        single = "single" in self.item.category
        record: dict[str, Any] = {"kind": kind}
        try:
            if kind == "code":
                reply = await self._ask(
                    "extractor",
                    code_extraction_prompt(answer, part.instruction, single=single, prompts=self.ctx.prompts),
                    f"extract/{key}",
                )
                record["reply"] = reply
                code = code_from_answer(reply, compat=self.compat)
                if code is None:
                    extraction = Extraction(None, "no_code", "the extractor's answer defines no extract_info_list")
                else:
                    result = await run_function_async(
                        code,
                        answer,
                        limits=self.limits,
                        split_namespace=SPLIT_NAMESPACE[self.compat],
                        allow_weak=self.params.allow_weak_sandbox,
                    )
                    record["sandbox"] = {"seconds": round(result.duration, 3), "layers": list(result.layers)}
                    extraction = extraction_from_sandbox(result, compat=self.compat)
            elif kind == "llm":
                reply = await self._ask(
                    "extractor",
                    llm_extraction_prompt(task_text, answer, part.instruction, single=single, prompts=self.ctx.prompts),
                    f"extract/{key}",
                )
                record["reply"] = reply
                extraction = parse_list_answer(reply, answer, compat=self.compat)
            elif kind == "json":
                extraction = json_field(answer, part.json_key or "")
            else:
                extraction = list_from_response(answer, compat=self.compat)
        except ModelError as exc:
            record.update(failure="extractor_error", detail=f"{type(exc).__name__}: {exc}")
            return PartResult(None, True, record)
        record.update(items=extraction.items, failure=extraction.failure, detail=extraction.detail)
        if extraction.failure and kind in EXTRACTOR_KINDS and self.compat != "head":
            # The extractor model or its code failed, not the candidate: unscored, never 0.
            return PartResult(None, True, record)
        return PartResult(checker_input(extraction, compat=self.compat), False, record)

    async def judge(self, sq: SubQuestion, answer: str, task_text: str) -> dict[str, Any]:
        attempts = 1 if self.compat == "head" else self.params.judge_attempts
        messages = first_round_messages(judge_prompt(task_text, answer, sq.question, self.ctx.prompt("judge")))

        def parse(reply: str) -> tuple[int | None, str]:
            return parse_judge_verdict(reply, compat=self.compat), reply

        asked = await ask_until(
            self.ctx,
            "judge",
            messages,
            parse,
            lambda parsed: parsed[0] is not None,
            attempts=attempts,
            turn=f"r{self.round_no}/judge/{sq.position}",
        )
        if asked.error is not None:
            return {
                "method": "judge",
                "result": None,
                "status": "error",
                "attempts": asked.attempts,
                "reason": f"judge call failed: {type(asked.error).__name__}: {asked.error}",
            }
        verdict, reply = asked.last or (None, "")
        if verdict is not None:
            record = {
                "method": "judge",
                "result": verdict,
                "status": "judged",
                "attempts": asked.attempts,
                "reason": reply.strip(),
            }
            if self.compat == "head" and _VERDICT_HEAD.search(reply) is None:
                record["defaulted"] = True  # no verdict line: 0 by the reference's rule, not the judge's word
            return record
        return {
            "method": "judge",
            "result": None,
            "status": "unscored",
            "attempts": asked.attempts,
            "reason": f"no 判断：是/否 verdict in the judge's reply: {reply.strip()[:300]!r}",
        }

    def rule_check(self, sq: SubQuestion, answer: str, parts: dict[str, PartResult]) -> dict[str, Any]:
        label = sq.rule or ""
        if label.upper().startswith("SCHEMA"):
            verdict = evaluate_rule(label, answer, self.rule_ctx, self.item.dispatcher)
            record = self._verdict(verdict)
            points = schema_points(answer, self.item.json_schema, self.compat) if self.item.json_schema else None
            if verdict.passed is not None and points:
                record["points"] = [{"path": p.path, "tags": p.tags, "result": int(p.passed)} for p in points]
            return record
        if find_spec(label, self.item.dispatcher) is None:  # unsupported, whatever the extraction gave
            return self._verdict(evaluate_rule(label, [], self.rule_ctx, self.item.dispatcher))
        part = parts.get(sq.corresponding_part or "")
        if part is None:
            return {
                "method": "rule",
                "result": None,
                "status": "undecidable",
                "reason": "the sub-question names no corresponding_part",
            }
        if part.undecided:
            failure = part.record.get("failure", "")
            return {
                "method": "rule",
                "result": None,
                "status": "extraction_undecided",
                "reason": f"extraction failed ({failure}): {part.record.get('detail', '')[:300]}",
            }
        if part.items is None:
            return {
                "method": "rule",
                "result": 0,
                "status": "extraction_failed",
                "reason": f"{EXTRACTION_FAILED} ({part.record['failure']}: {part.record['detail'][:300]})",
            }
        return self._verdict(evaluate_rule(label, part.items, self.rule_ctx, self.item.dispatcher))

    @staticmethod
    def _verdict(verdict: Any) -> dict[str, Any]:
        result = None if verdict.passed is None else int(verdict.passed)
        return {"method": "rule", "result": result, "status": verdict.status, "reason": verdict.reason}

    async def evaluate(self, answer: str, task_text: str) -> dict[str, Any]:
        """Extraction and checks of one answer, level by level; gated sub-questions are not evaluated."""
        subs = self.item.sub_questions
        keys = sorted(
            {
                sq.corresponding_part
                for sq in subs
                if sq.rule and sq.corresponding_part and not sq.rule.upper().startswith("SCHEMA")
            }
        )
        extracted = await asyncio.gather(*(self.extract(k, answer, task_text) for k in keys))
        parts = dict(zip(keys, extracted))
        records: list[dict[str, Any]] = [{} for _ in subs]
        values: list[int | None] = [None] * len(subs)
        for wave in self.graph.waves():
            to_check = [p for p in wave if self.graph.gate(p, values) == "open"]
            checked = await asyncio.gather(
                *(
                    self.judge(subs[p], answer, task_text)
                    if subs[p].rule is None
                    else self._sync(subs[p], answer, parts)
                    for p in to_check
                )
            )
            for position, record in zip(to_check, checked):
                records[position] = record
            gated = apply_dependencies(self.graph, [r.get("result") for r in records])
            values = [g.value for g in gated]
        for sq, record, gate in zip(subs, records, gated):
            if gate.reason != "evaluated":
                record.update(
                    method="dependency",
                    result=gate.value,
                    status=gate.reason,
                    reason=DEPENDENCIES_FAILED if gate.value == 0 else "a dependency is undecided",
                )
            record.update(
                position=sq.position,
                point_id=sq.point_id,
                question=sq.question,
                rule=sq.rule,
                tags=tag_string(sq, self.compat),
            )
        return {"parts": {k: p.record for k, p in parts.items()}, "sub_questions": records}

    async def _sync(self, sq: SubQuestion, answer: str, parts: dict[str, PartResult]) -> dict[str, Any]:
        return self.rule_check(sq, answer, parts)


# Undecided because a judge, extractor or sandbox failed (the official code counts these as 0).
INFRA_STATUSES = frozenset({"error", "unscored", "extraction_undecided"})


def metric_checks(sub_questions: Sequence[dict[str, Any]]) -> list[list[Any]]:
    """``[tags, result, infra]`` per check for the metrics; a decided SCHEMA rule counts per field."""
    checks: list[list[Any]] = []
    for record in sub_questions:
        if record.get("points") and record["method"] == "rule":
            checks.extend([p["tags"], p["result"], False] for p in record["points"])
        else:
            checks.append(
                [record["tags"], record["result"], record["result"] is None and record.get("status") in INFRA_STATUSES]
            )
    return checks


UNSUPPORTED_STATUSES = frozenset({"unsupported", "missing_dependency"})


def round_record(
    round_no: int, prompt: str, answer: str, finish_reason: str | None, evaluation: dict[str, Any]
) -> dict[str, Any]:
    subs = evaluation["sub_questions"]
    return {
        "round": round_no,
        "prompt": prompt,
        "answer": answer,
        "finish_reason": finish_reason,
        **evaluation,
        "checks": metric_checks(subs),
        "failed": sum(1 for r in subs if r["result"] == 0),
        "undecided": sum(1 for r in subs if r["result"] is None),
        "unsupported": sum(1 for r in subs if r["status"] in UNSUPPORTED_STATUSES),
    }


async def run_item(item: MeeseeksItem, graph: DependencyGraph, ctx: SampleContext, params: MeeseeksParams) -> State:
    """Drive the candidate through up to `params.rounds` rounds for one item.

    A candidate error in round 1 propagates (the sample fails); in a later round it is
    recorded in that round's turn and the loop stops, so the item keeps its earlier results.
    """
    messages = first_round_messages(item.question)
    turns: list[dict[str, Any]] = []
    answer, finish_reason = "", None
    for round_no in range(1, params.rounds + 1):
        try:
            completion = await ctx.generate("candidate", messages, turn=f"r{round_no}/candidate")
        except ModelError as exc:
            if round_no == 1:
                raise
            turns.append(
                {
                    "round": round_no,
                    "prompt": messages[-1]["content"],
                    "checks": None,
                    "candidate_error": f"{type(exc).__name__}: {exc}",
                    "candidate_overflow": isinstance(exc, ContextOverflowError),
                }
            )
            break
        answer, finish_reason = completion.text, completion.finish_reason
        # The reference shows the current prompt (the re-ask prompt from round 2 on) to the
        # extractor and the judge; proseval shows the task itself.
        task_text = messages[-1]["content"] if params.compat == "head" else item.question
        evaluation = await RoundEvaluator(item, graph, ctx, params, round_no).evaluate(answer, task_text)
        turns.append(round_record(round_no, messages[-1]["content"], answer, finish_reason, evaluation))
        outcomes = [CheckOutcome(r["question"], r["result"], r["reason"]) for r in evaluation["sub_questions"]]
        if round_no == params.rounds or not needs_another_round(outcomes):
            break
        messages = next_round_messages(
            params.feedback,
            messages,
            item.question,
            answer,
            outcomes,
            template=ctx.prompt("reask"),
            language=params.feedback_language,
        )
    stopped_by_error = "candidate_error" in turns[-1]
    conversation = list(messages) if stopped_by_error else [*messages, {"role": "assistant", "content": answer}]
    return State(
        messages=conversation,
        output=answer,
        finish_reason=finish_reason,
        turns=turns,
        metadata={"rounds_run": len(turns)},
    )


async def reevaluate_item(
    item: MeeseeksItem, graph: DependencyGraph, ctx: SampleContext, params: MeeseeksParams, stored: State
) -> State:
    """Evaluate the stored answers of every round again with the roles bound now (re-scoring).

    The candidate is not called: each round keeps its prompt and answer, and its extraction,
    rule checks and judge verdicts are made anew. The rounds themselves are the stored ones:
    which rounds happened depended on the original verdicts, so a re-score changes verdicts
    and scores, not the trajectory.
    """
    turns: list[dict[str, Any]] = []
    for turn in stored.turns:
        if turn.get("checks") is None and "candidate_error" in turn:
            turns.append(dict(turn))
            continue
        task_text = turn["prompt"] if params.compat == "head" else item.question
        evaluation = await RoundEvaluator(item, graph, ctx, params, turn["round"]).evaluate(turn["answer"], task_text)
        turns.append(round_record(turn["round"], turn["prompt"], turn["answer"], turn.get("finish_reason"), evaluation))
    return stored.model_copy(update={"turns": turns})
