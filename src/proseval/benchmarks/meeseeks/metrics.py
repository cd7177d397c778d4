"""Meeseeks metrics: per-item score, Utility Rate, Meeseeks Score, capability tree, carry-forward.

* `meeseeks_score` — the paper's Meeseeks Score (its App. D.2) as the official statistics
  code computes it: the mean over items of the per-item score, itself the mean over the
  item's distinct capability tags (split on ``、`` and ``,``; a sub-question without a tag key
  counts under ``未定义``) of the tag's pass rate.
* `utility_score` — the Utility Rate: the share of items whose every check passed. An item the
  candidate could not answer (its prompt overflowed the context: `MODEL_FAILED`) counts as a
  failed item, with score 0, as the paper (§4.2) counts it; the `*_answered` variants leave
  such items out.
* `capability_mean_level1` — a summary, not the Meeseeks Score: the mean pass rate of the
  level-1 nodes of the capability tree.

A check whose result is not decided (`None`: unscored judge verdict, extractor or sandbox
failure, undecided dependency) is never counted as a failure: the per-item score uses the
decided checks only, the utility of an item without failures but with an undecided check is
undecided, and the capability tree counts such checks as `unscored`. Every such case is
counted. `official_counting` gives the figures the official code would report, where an
infrastructure failure (`Check.infra`) is a failed check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

UNDEFINED_TAG = "未定义"
TAG_KEY = "能力项"
# Spellings of the tag key in the Japanese and Korean data; the official code reads only TAG_KEY.
TAG_KEY_ALIASES = ("能力項", "능력항")


@dataclass(frozen=True)
class Check:
    """One evaluated sub-question: its raw tag string (None if it has no tag key) and result.

    `infra`: the result is None because a judge, extractor or sandbox failed (the official
    code counts such a check as failed), not because no checker exists for its rule.
    """

    tags: str | None
    result: int | None
    infra: bool = False


class _ModelFailed:
    """The marker of an item the candidate could not answer (its prompt overflowed the context)."""

    def __repr__(self) -> str:
        return "MODEL_FAILED"

    def __iter__(self):  # no checks
        return iter(())


MODEL_FAILED = _ModelFailed()
ItemChecks = Sequence[Check]


def score_tags(tags: str | None) -> list[str]:
    """Tags as the per-item score splits them: on ``、`` and ``,``, stripped, empties dropped."""
    if tags is None:
        return [UNDEFINED_TAG]
    return [t.strip() for t in tags.replace("、", ",").split(",") if t.strip()]


def report_tags(tags: str) -> list[str]:
    """Tags as the capability report splits them: ``～`` normalised to ``~``, split on ``、``."""
    return tags.replace("～", "~").split("、")


@dataclass(frozen=True)
class ItemScore:
    """Per-item score (None if no check is decided), utility (1, 0 or None) and undecided count."""

    score: float | None
    utility: int | None
    undecided: int


def score_item(checks: ItemChecks) -> ItemScore:
    by_tag: dict[str, list[int]] = {}
    for check in checks:
        if check.result is None:
            continue
        for tag in score_tags(check.tags):
            by_tag.setdefault(tag, []).append(check.result)
    means = [sum(values) / len(values) for values in by_tag.values()]
    score = sum(means) / len(means) if means else None
    undecided = sum(1 for c in checks if c.result is None)
    if any(c.result == 0 for c in checks):
        utility: int | None = 0
    elif undecided or not checks:
        utility = None
    else:
        utility = 1
    return ItemScore(score, utility, undecided)


@dataclass(frozen=True)
class DatasetScore:
    """Dataset-level scores with the counts behind them.

    `items` counts every item; `model_failed` those the candidate could not answer (score and
    utility 0 in the headline figures, left out of the `*_answered` ones); `not_evaluated`
    those without any result for another reason (a failed request: unscored, retryable);
    `partial` those scored with some undecided checks; `utility_items` those whose utility is
    decided (model failures included). Means are over the items that have a value.
    """

    meeseeks_score: float | None
    utility_score: float | None
    meeseeks_score_answered: float | None
    utility_score_answered: float | None
    items: int
    scored_items: int
    utility_items: int
    partial: int
    not_evaluated: int
    model_failed: int


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def dataset_score(items: Sequence[ItemChecks | _ModelFailed | None]) -> DatasetScore:
    failed = sum(1 for checks in items if checks is MODEL_FAILED)
    scores = [score_item(checks) for checks in items if checks is not None and not isinstance(checks, _ModelFailed)]
    values = [s.score for s in scores if s.score is not None]
    utilities = [s.utility for s in scores if s.utility is not None]
    return DatasetScore(
        meeseeks_score=_mean(values + [0.0] * failed),
        utility_score=_mean(utilities + [0] * failed),
        meeseeks_score_answered=_mean(values),
        utility_score_answered=_mean(utilities),
        items=len(items),
        scored_items=len(values) + failed,
        utility_items=len(utilities) + failed,
        partial=sum(1 for s in scores if s.score is not None and s.undecided),
        not_evaluated=sum(1 for checks in items if checks is None),
        model_failed=failed,
    )


def official_counting(items: Sequence[ItemChecks | _ModelFailed | None]) -> DatasetScore:
    """The scores as the official code counts: a check left undecided by a judge, extractor or
    sandbox failure is a failed check (a check without a ported checker stays undecided)."""

    def counted(checks: ItemChecks | _ModelFailed | None) -> ItemChecks | _ModelFailed | None:
        if checks is None or checks is MODEL_FAILED:
            return checks
        return [Check(c.tags, 0, False) if c.infra else c for c in checks]

    return dataset_score([counted(checks) for checks in items])


# The capability hierarchy of the official statistics code: (name, children); leaves may sit
# at level 2 or 3, and only leaves receive counts.
Hierarchy = tuple[tuple[str, "Hierarchy"], ...]
HIERARCHY: Hierarchy = (
    ("任务意图理解", (("在干扰下完成指令", ()),)),
    (
        "单元细节合规",
        (
            ("主题约束", ()),
            ("文体约束", (("生成特定文案", ()), ("生成名字/标题", ()))),
            ("语言约束", (("中英文混杂", ()), ("繁体约束", ()), ("大小写", ()))),
            ("格式约束", (("特定格式", ()), ("日期格式", ()))),
            (
                "字数约束",
                tuple(
                    (name, ())
                    for name in ("精确", "范围", "倍数", "多对象", "0~10字", "10~50字", "50~200字", "200字以上")
                ),
            ),
            (
                "其他特殊规则",
                tuple(
                    (name, ())
                    for name in ("押韵", "关键词", "重复", "平仄", "接龙", "emoji", "符号", "写作手法", "词频")
                ),
            ),
        ),
    ),
    (
        "整体结构合规",
        (
            ("模版合规", (("LaTeX", ()), ("JSON", ()), ("Markdown", ()))),
            ("单元数量合规", ()),
            ("答题逻辑合规", (("答题结构合规", ()), ("全面考虑", ()))),
        ),
    ),
)

# English labels. Those marked "own" are proseval's: the official labels of these nodes are
# not known (they never appear in the published English statistics).
ENGLISH_NAMES: Mapping[str, str] = {
    "任务意图理解": "Intent Recognition",
    "在干扰下完成指令": "Follow instruction under distraction",
    "单元细节合规": "Granular Content Validation",
    "主题约束": "Theme requirement",
    "文体约束": "Stylistic requirement",
    "生成特定文案": "Generate in certain style",
    "生成名字/标题": "Generate names/titles",
    "语言约束": "Language requirement",
    "中英文混杂": "Generate Chinese-English-mixed article",
    "繁体约束": "Generate in traditional Chinese characters",  # own
    "大小写": "Generate with letter-case requirement",  # own
    "格式约束": "Granular format requirement",
    "特定格式": "Generate in other format",
    "日期格式": "Generate result in date-format",
    "字数约束": "Word count requirement",
    "精确": "Generate at accurate word number",
    "范围": "Generate in rough/range word number",
    "倍数": "Generate in X times word number of reference text",
    "多对象": "Generate word counts for several objects",  # own
    "0~10字": "Generate in 0~10 words",
    "10~50字": "Generate in 10~50 words",
    "50~200字": "Generate in 50~200 words",
    "200字以上": "Generate in above 200 words",
    "其他特殊规则": "Other granular requirements",
    "押韵": "Generate rhyming content",
    "关键词": "Generate with certain keywords",
    "重复": "Generate repeat/non-repeat content",
    "平仄": "Generate with tonal pattern (pingze)",  # own
    "接龙": "Generate word chain (jielong)",  # own
    "emoji": "Generate with emoji",  # own
    "符号": "Generate with certain symbols",  # own
    "写作手法": "Generate with certain rhetoric",
    "词频": "Generate with certain number of word X",
    "整体结构合规": "Output Structure Validation",
    "模版合规": "Output format requirement",
    "LaTeX": "LaTeX format",  # own
    "JSON": "JSON format",
    "Markdown": "Markdown format",  # own
    "单元数量合规": "Element number requirement",
    "答题逻辑合规": "Output logic requirement",
    "答题结构合规": "Generate by certain steps",
    "全面考虑": "Consider every aspect",  # own
}


@dataclass
class CapabilityNode:
    """A node of the capability tree with its counts (internal nodes sum their children)."""

    name: str
    correct: int = 0
    wrong: int = 0
    unscored: int = 0
    children: list[CapabilityNode] = field(default_factory=list)

    @property
    def total(self) -> int:
        """Decided checks (the official `total`); `unscored` ones are not included."""
        return self.correct + self.wrong

    @property
    def percentage(self) -> float | None:
        return self.correct / self.total if self.total else None


def capability_tree(items: Sequence[ItemChecks | None]) -> list[CapabilityNode]:
    """The level-1 nodes with all counts; nodes without any check are omitted.

    Only checks with a tag key count; a tag adds to the leaf of the same name. Tags outside
    the hierarchy and tags naming an internal node are not counted (as in the official code).
    """
    leaf_counts: dict[str, list[int]] = {}  # tag -> [correct, wrong, unscored]
    for checks in items:
        for check in checks or ():
            if check.tags is None:
                continue
            slot = 2 if check.result is None else (0 if check.result == 1 else 1)
            for tag in report_tags(check.tags):
                leaf_counts.setdefault(tag, [0, 0, 0])[slot] += 1

    def build(name: str, children: Hierarchy) -> CapabilityNode:
        if not children:
            correct, wrong, unscored = leaf_counts.get(name, (0, 0, 0))
            return CapabilityNode(name, correct, wrong, unscored)
        kept = [n for n in (build(*child) for child in children) if n.total or n.unscored]
        return CapabilityNode(
            name,
            correct=sum(n.correct for n in kept),
            wrong=sum(n.wrong for n in kept),
            unscored=sum(n.unscored for n in kept),
            children=kept,
        )

    roots = [build(name, children) for name, children in HIERARCHY]
    return [n for n in roots if n.total or n.unscored]


def level1_score(tree: Sequence[CapabilityNode]) -> float | None:
    """Mean pass rate of the level-1 capabilities that have checks (a summary, not the Meeseeks Score)."""
    rates = [node.percentage for node in tree if node.percentage is not None]
    return sum(rates) / len(rates) if rates else None


def carry_forward(
    rounds: Sequence[Mapping[str, ItemChecks | None]], item_ids: Sequence[str]
) -> list[dict[str, ItemChecks | None]]:
    """Full-set results after each round.

    `rounds[n]` maps the id of every item processed in round n+1 to its checks, or to None
    when it was processed but produced no evaluation (e.g. the candidate call failed). The
    state after round N gives each item its checks from the last round <= N that evaluated
    it, or None if no round has.
    """
    known = set(item_ids)
    state: dict[str, ItemChecks | None] = dict.fromkeys(item_ids)
    states = []
    for number, processed in enumerate(rounds, start=1):
        unknown = [item_id for item_id in processed if item_id not in known]
        if unknown:
            raise ValueError(f"round {number}: unknown item id(s) {unknown[:5]}")
        for item_id, checks in processed.items():
            if checks is not None:
                state[item_id] = checks
        states.append(dict(state))
    return states


def checks_from_sub_questions(
    sub_questions: Sequence[Mapping[str, object]], *, tag_aliases: bool = True, where: str = "item"
) -> list[Check]:
    """Checks from evaluated sub-questions in the official round-file layout.

    `eval_result` may be 0/1 or a boolean (normalised to 0/1); a missing or null result is
    undecided. `tag_aliases` also reads the Japanese and Korean spellings of the tag key
    (the official code does not).
    """
    keys = (TAG_KEY, *TAG_KEY_ALIASES) if tag_aliases else (TAG_KEY,)
    checks = []
    for position, sub_question in enumerate(sub_questions):
        tags = next((sub_question[k] for k in keys if sub_question.get(k) is not None), None)
        if tags is not None and not isinstance(tags, str):
            raise ValueError(f"{where}, sub-question {position}: tag value is not a string")
        raw = sub_question.get("eval_result")
        if raw is None:
            result = None
        elif isinstance(raw, int) and raw in (0, 1):
            result = int(raw)  # bool is an int: True -> 1, False -> 0
        else:
            raise ValueError(f"{where}, sub-question {position}: eval_result {raw!r} is not 0/1")
        checks.append(Check(tags, result))
    return checks
