"""End to end with scripted revisers: drafts, pairs, stability, the scorer factory and file errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import proseval
from proseval import registry
from proseval.benchmarks.revision_distance import revision_distance_scorer
from proseval.benchmarks.revision_distance.perturb import perturb
from proseval.benchmarks.revision_distance.prompts import PROMPTS
from proseval.benchmarks.revision_distance.stats import spearman_ci, wilson_ci
from proseval.cli import app
from proseval.core.protocols import single_turn
from proseval.core.sample import Sample
from proseval.core.task import Task
from proseval.models.base import Completion, FatalError
from proseval.models.scripted import ScriptedModel

DATA = Path(__file__).parent / "data"
_DRAFT = re.compile(r"Draft:\n<<<\n(.*?)\n>>>", re.S)


def draft_in(messages) -> str:
    return _DRAFT.search(messages[-1]["content"]).group(1)


def edit(action: str, original: str, revised: str, level: str = "phrase", **more) -> dict:
    return {
        "action_name": action,
        "revision_description": f"{action} it",
        "revision_level": level,
        "original_snippet": original,
        "revised_snippet": revised,
        "revision_intention": "closer to the target",
        **more,
    }


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


DRAFTS = [
    {"id": "a", "draft": "The cat sat on the mat. It was big.", "instruction": "Describe the cat."},
    {"id": "b", "draft": "Dogs bark loudly at night.", "instruction": "Describe dogs."},
    {"id": "c", "draft": "The sun is hot today.", "instruction": "Describe the weather."},
]
REFS = [
    {"id": "a", "reference": "The cat lay on the mat. It was large."},
    {"id": "b", "reference": "Dogs bark loudly at night."},
    {"id": "c", "reference": "The sun is very hot today."},
]


def reviser(messages) -> str:
    draft = draft_in(messages)
    if draft.startswith("The cat"):  # a compound edit (two actions), a plain one and an ungrounded one
        return "Edits:\n" + json.dumps(
            [
                edit("rephrase and shorten", "The cat sat on the mat", "The cat lay on the mat"),
                edit("replace", "big", "large", "word"),
                edit("delete", "a purple elephant", ""),
            ]
        )
    if draft.startswith("Dogs"):
        return "[]"
    return "The draft reads well, but I would make the sun hotter."  # prose: unusable


def test_drafts_run_counts_edits_leaves_prose_unscored_and_reports_rouge(tmp_path, scripts):
    drafts, refs = write_jsonl(tmp_path / "d.jsonl", DRAFTS), write_jsonl(tmp_path / "r.jsonl", REFS)
    run = proseval.run(
        "revision-distance",
        roles={"reviser": scripts("rd-reviser", reviser)},
        params={"drafts": str(drafts), "refs": str(refs), "weighting": "level"},
        out=tmp_path / "runs",
    )
    metrics = run.results.metrics
    assert metrics["revision_distance"].mean == pytest.approx((4 + 0) / 2)  # compound split: 2 + 1 + 1; [] is 0
    assert metrics["revision_distance"].n_scored == 2 and metrics["revision_distance"].n_unscored == 1
    assert metrics["ungrounded_edits"].mean == pytest.approx(0.5)  # the elephant, once over two drafts
    assert metrics["grounded_edits"].mean == pytest.approx(1.5)
    assert metrics["revision_distance_weighted"].mean == pytest.approx((1 + 1 + 1 + 1) / 2)  # phrase 1, word 1
    assert metrics["revision_categories.rewrite"].mean == pytest.approx(1.0)  # rephrase, replace
    assert metrics["revision_categories.delete"].mean == pytest.approx(1.0)  # shorten, delete
    assert metrics["rouge.rouge1"].n_scored == 3  # ROUGE needs no reviser: scored for every draft
    assert metrics["rouge.rougeL"].mean == pytest.approx((7 / 9 + 1.0 + 10 / 11) / 3)
    extra = run.results.extra["revision_distance"]
    assert extra["unscored"] == {"unparsable": 1} and extra["scored"] == 2
    assert extra["grounded_share"] == pytest.approx(3 / 4)
    assert extra["normalisation"]["split_added"] == 1 and extra["normalisation"]["raw_count"] == 3
    assert extra["categories"]["delete"]["share"] == pytest.approx(2 / 4)
    rouge_l = extra["baselines"]["rougeL"]  # every draft's ROUGE in the mean; ρ over the two with a distance
    assert (rouge_l["n"], rouge_l["n_paired"]) == (3, 2)
    assert rouge_l["mean"] == pytest.approx((7 / 9 + 1.0 + 10 / 11) / 3)
    assert rouge_l["spearman_vs_neg_distance"] == pytest.approx(1.0)  # b: 0 edits, ROUGE-L 1; a: 4 edits, 7/9
    assert extra["per_words"] == 100 and extra["normalised_mean"] == pytest.approx(
        (4 * 100 / 9 + 0) / 2
    )  # 9 words, 4 edits; 0
    # 95% intervals: the bootstrap of the mean of distances 4 and 0 (resampled means 0, 2 or 4), Wilson for the
    # grounded share (3 of 4 quoting edits), none for ρ over two drafts
    assert extra["distance"]["mean_ci"] == pytest.approx([0.0, 4.0])
    assert extra["grounded_share_ci"] == pytest.approx(list(wilson_ci(3, 4)))
    assert extra["categories"]["delete"]["share_ci"] == pytest.approx(list(wilson_ci(2, 4)))
    assert rouge_l["spearman_ci"] is None and rouge_l["mean_ci"][0] < rouge_l["mean"] < rouge_l["mean_ci"][1]
    assert run.results.counts.unscored == 1
    assert (run.path / "revision_distance_drafts.png").read_bytes()[:4] == b"\x89PNG"
    records = {r.id: r for r in run.records()}
    assert records["c"].scores["revision_distance"].parse_status == "unparsable"
    listed = records["a"].scores["revision_distance"].metadata["edits"]
    assert [e["action_name"] for e in listed] == ["rephrase", "shorten", "replace", "delete"]
    assert listed[3]["grounding"] < 0.8 and listed[2]["grounding"] == 1.0


def test_reference_free_needs_no_reference_and_sends_the_request(tmp_path, scripts):
    seen: list[str] = []
    script = scripts("rd-free", lambda m: seen.append(m[-1]["content"]) or "[]")
    drafts = write_jsonl(tmp_path / "d.jsonl", DRAFTS[:1])
    run = proseval.run(
        "revision-distance",
        roles={"reviser": script},
        params={"drafts": str(drafts), "setting": "reference-free"},
        out=tmp_path / "runs",
    )
    assert run.results.metrics["revision_distance"].mean == 0.0 and "rouge" not in str(run.results.metrics)
    assert run.results.headline == "revision_distance"
    assert "Describe the cat." in seen[0] and "Target text" not in seen[0]


def test_knowledge_setting_counts_the_revisers_categories_else_the_actions(tmp_path, scripts):
    reply = json.dumps(
        [
            edit("move", "B", "A", "paragraph", category="order"),
            edit("contrast", "x", "unlike B, x", category="comparison"),
            edit("expand", "B does y", "B does y with z", category="description"),
            edit("explain", "x", "x, which", category="description and comparison"),
            # no category given: the action decides (group → order, compare → comparison, add → other)
            edit("group", "A. B", "A and B together", "reference"),
            edit("compare and contrast", "B does y", "B does y, unlike A", "reference"),
            edit("add", "", "C does w.", "sentence"),
        ]
    )
    drafts = write_jsonl(tmp_path / "d.jsonl", [{"draft": "A. B does y. x.", "reference": "B. A. x."}])
    run = proseval.run(
        "revision-distance",
        roles={"reviser": scripts("rd-knowledge", [reply])},
        params={"drafts": str(drafts), "setting": "knowledge", "weighting": "level"},
        out=tmp_path / "runs",
    )
    metrics = run.results.metrics
    assert metrics["revision_distance"].mean == 7.0  # "compare and contrast" is one edit
    assert metrics["revision_distance_weighted"].mean == 3 + 1 + 1 + 1 + 2 + 2 + 2  # paragraph, 3 phrases, ...
    assert {k: metrics[f"revision_categories.{k}"].mean for k in ("order", "comparison", "description", "other")} == {
        "order": 2.0,
        "comparison": 2.0,
        "description": 2.0,
        "other": 1.0,
    }
    assert metrics["revision_levels.reference"].mean == 2.0
    assert run.header.task_params["setting"] == "knowledge"


def test_a_replacement_prompt_reaches_the_reviser(tmp_path, scripts):
    mine = tmp_path / "mine.txt"
    mine.write_text("MINE\nDraft:\n<<<\n{draft}\n>>>\nTarget: {reference}\nJSON list please", encoding="utf-8")
    seen: list[str] = []
    script = scripts("rd-seen", lambda m: seen.append(m[-1]["content"]) or "[]")
    drafts, refs = write_jsonl(tmp_path / "d.jsonl", DRAFTS[:1]), write_jsonl(tmp_path / "r.jsonl", REFS[:1])
    run = proseval.run(
        "revision-distance",
        roles={"reviser": script},
        prompts={"reviser-general": mine},
        params={"drafts": str(drafts), "refs": str(refs)},
        out=tmp_path / "runs",
    )
    assert seen[0].startswith("MINE\n") and "Target: The cat lay" in seen[0]
    assert run.header.prompts["reviser-general"].source == str(mine)


@pytest.mark.parametrize(
    "lines, message",
    [
        (['{"id": "a", "draft": "x"}', '{"id": "b", "draft": '], "d.jsonl:2: invalid JSON"),
        (['{"id": "a", "draft": "x"}', '["x"]'], "d.jsonl:2: expected a JSON object"),
        (['{"id": "a", "text": "x"}', '{"id": "b"}'], "d.jsonl:2: no text under draft"),
        (['{"id": "a", "draft": "x"}', '{"id": "a", "draft": "y"}'], "d.jsonl:2: duplicate id 'a'"),
        (['{"id": "a", "draft": "x"}', '{"id": "b", "draft": "y"}'], "d.jsonl:2: draft 'b' has no reference"),
    ],
)
def test_malformed_draft_files_are_errors_naming_the_line(tmp_path, lines, message):
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    refs = write_jsonl(tmp_path / "r.jsonl", [{"id": "a", "reference": "ref"}])
    result = CliRunner().invoke(
        app,
        [
            "run",
            "revision-distance",
            "--drafts",
            str(path),
            "--refs",
            str(refs),
            "--role",
            "reviser=scripted/echo",
            "--out",
            str(tmp_path / "runs"),
        ],
    )
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())


def test_drafts_and_pairs_are_exclusive(tmp_path):
    result = CliRunner().invoke(app, ["run", "revision-distance", "--role", "reviser=scripted/echo"])
    assert result.exit_code == 2 and "exactly one of --drafts FILE and --pairs FILE" in " ".join(result.output.split())


def test_the_reviser_role_defaults_to_greedy_decoding(tmp_path, scripts):
    drafts = write_jsonl(tmp_path / "d.jsonl", DRAFTS[:1])
    run = proseval.run(
        "revision-distance",
        roles={"reviser": scripts("rd-greedy", ["[]"])},
        params={"drafts": str(drafts), "setting": "reference-free"},
        out=tmp_path / "runs",
    )
    assert run.header.roles["reviser"].config.temperature == 0.0


# --- pairs ---------------------------------------------------------------------------------------


def counting_reviser(messages) -> str:
    """One edit per word that is written in capitals: a fixed, known distance per text."""
    words = [w for w in re.findall(r"[A-Za-z]+", draft_in(messages)) if w.isupper() and len(w) > 1]
    return json.dumps([edit("replace", w, w.lower(), "word") for w in words])


PAIRS = [  # (chosen, rejected, chosen score, rejected score) → distances by the capitals they hold
    ("fine text", "BAD TEXT here", 5, 1),  # 0 vs 2: agree
    ("ONE flaw", "TWO FLAWS HERE", 4, 2),  # 1 vs 3: agree
    ("SAME", "ALSO", 3, 3),  # 1 vs 1: tie
    ("MANY MORE CAPS", "clean", 2, 4),  # 3 vs 0: disagree
]


def test_pairwise_agreement_ties_and_spearman(tmp_path, scripts):
    pairs = write_jsonl(
        tmp_path / "p.jsonl",
        [
            {"id": f"p{i}", "chosen": c, "rejected": r, "chosen_score": cs, "rejected_score": rs}
            for i, (c, r, cs, rs) in enumerate(PAIRS)
        ],
    )
    result = CliRunner().invoke(
        app,
        [
            "run",
            "revision-distance",
            "--pairs",
            str(pairs),
            "--setting",
            "reference-free",
            "--role",
            f"reviser={scripts('rd-count', counting_reviser)}",
            "--out",
            str(tmp_path / "runs"),
            "--display",
            "none",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Pairwise agreement" in result.output and "50.0%" in result.output
    run = proseval.read_run(next((tmp_path / "runs").iterdir()))
    extra = run.results.extra["revision_distance"]
    assert (extra["pairs"], extra["agreement"], extra["tie_rate"], extra["disagreement"]) == (4, 0.5, 0.25, 0.25)
    assert extra["agreement_without_ties"] == pytest.approx(2 / 3)
    assert extra["spearman_human_vs_neg_distance"] == pytest.approx(expected_spearman())
    assert extra["human_scored_texts"] == 8
    assert extra["agreement_ci"] == pytest.approx(list(wilson_ci(2, 4)))
    assert extra["agreement_without_ties_ci"] == pytest.approx(list(wilson_ci(2, 3)))
    assert extra["spearman_human_vs_neg_distance_ci"] == pytest.approx(list(spearman_ci(expected_spearman(), 8)))
    # the paper's convention, ρ(D, human): the same correlation with the opposite sign, interval mirrored
    assert extra["spearman_distance_vs_human"] == pytest.approx(-expected_spearman())
    low, high = spearman_ci(expected_spearman(), 8)
    assert extra["spearman_distance_vs_human_ci"] == pytest.approx([-high, -low])
    assert "distance vs human score; the paper's R" in " ".join(result.output.split())
    assert "weighted" not in extra and "rouge" not in extra  # no weighting asked for; the pairs have no reference
    assert run.results.metrics["pair_agree"].mean == 0.5 and run.results.metrics["pair_tie"].mean == 0.25
    assert run.results.headline == "pair_agree"
    assert (run.path / "revision_distance_pairs.png").is_file()


def expected_spearman() -> float:
    """ρ computed by hand from average ranks (human: 5,1,4,2,3,3,2,4; −distance: 0,−2,−1,−3,−1,−1,−3,0)."""
    human_ranks = [8, 1, 6.5, 2.5, 4.5, 4.5, 2.5, 6.5]
    distance_ranks = [7.5, 3, 5, 1.5, 5, 5, 1.5, 7.5]
    n = len(human_ranks)
    mh, md = sum(human_ranks) / n, sum(distance_ranks) / n
    cov = sum((h - mh) * (d - md) for h, d in zip(human_ranks, distance_ranks))
    vh = sum((h - mh) ** 2 for h in human_ranks)
    vd = sum((d - md) ** 2 for d in distance_ranks)
    return cov / (vh * vd) ** 0.5


def test_a_pair_with_an_unusable_reply_is_unscored(tmp_path, scripts):
    pairs = write_jsonl(
        tmp_path / "p.jsonl", [{"chosen": "good", "rejected": "PROSE please"}, {"chosen": "fine", "rejected": "BAD"}]
    )
    script = scripts(
        "rd-pair-prose", lambda m: "no edits, it is fine" if "PROSE" in draft_in(m) else counting_reviser(m)
    )
    run = proseval.run(
        "revision-distance",
        roles={"reviser": script},
        params={"pairs": str(pairs), "setting": "reference-free"},
        out=tmp_path / "runs",
    )
    extra = run.results.extra["revision_distance"]
    assert extra["scored"] == 1 and extra["unscored"] == {"unparsable": 1} and extra["agreement"] == 1.0
    assert extra["spearman_human_vs_neg_distance"] is None and extra["human_scored_texts"] == 0


def level_reviser(messages) -> str:
    """One edit per capitalised word; "DOC" is a document-level edit (weight 4), the others word-level (1)."""
    words = [w for w in re.findall(r"[A-Za-z]+", draft_in(messages)) if w.isupper() and len(w) > 1]
    return json.dumps([edit("replace", w, w.lower(), "document" if w == "DOC" else "word") for w in words])


def test_the_weighting_applies_in_pairs_mode_and_rouge_scores_both_texts(tmp_path, scripts):
    rows = [  # (chosen, rejected, reference): distances and weighted distances by level_reviser
        ("DOC here", "AA BB", "doc here"),  # 1 vs 2 edits: agree; weighted 4 vs 2: disagree
        ("one AA", "CC DD EE", "one aa"),  # 1 vs 3: agree; 1 vs 3: agree
        ("the cat sat", "a dog ran", "the cat sat"),  # 0 vs 0: tie; ROUGE chosen 1, rejected 0
    ]
    pairs = write_jsonl(
        tmp_path / "p.jsonl",
        [{"id": f"p{i}", "chosen": c, "rejected": r, "reference": ref} for i, (c, r, ref) in enumerate(rows)],
    )
    run = proseval.run(
        "revision-distance",
        roles={"reviser": scripts("rd-levels", level_reviser)},
        params={"pairs": str(pairs), "setting": "general", "weighting": "level"},
        out=tmp_path / "runs",
    )
    extra = run.results.extra["revision_distance"]
    assert (extra["agreement"], extra["tie_rate"]) == (pytest.approx(2 / 3), pytest.approx(1 / 3))
    weighted = extra["weighted"]
    assert [weighted[k] for k in ("agreement", "disagreement", "tie_rate")] == pytest.approx([1 / 3, 1 / 3, 1 / 3])
    assert weighted["mean_chosen"] == pytest.approx((4 + 1 + 0) / 3)
    assert weighted["mean_rejected"] == pytest.approx((2 + 3 + 0) / 3)
    records = {r.id: r for r in run.records()}
    assert records["p0"].scores["pair_agree"].value == 1.0 and records["p0"].scores["pair_agree_weighted"].value == 0.0
    # ROUGE of both texts against the reference (lower-cased by the package's tokenizer)
    assert records["p0"].scores["rouge_chosen"].value["rouge1"] == pytest.approx(1.0)
    assert records["p2"].scores["rouge_rejected"].value == {"rouge1": 0.0, "rouge2": 0.0, "rougeL": 0.0}
    # ROUGE-1 prefers the chosen text in all three pairs (p1: "one aa" matches the chosen text exactly)
    rouge1 = extra["rouge"]["rouge1"]
    assert rouge1["scored_pairs"]["agreement"] == 1.0 and rouge1["all_pairs"]["pairs"] == 3
    assert rouge1["scored_pairs"]["agreement_ci"] == pytest.approx(list(wilson_ci(3, 3)))


def test_a_weighting_is_refused_by_the_stability_check_before_any_request(tmp_path, scripts):
    calls: list[str] = []
    script = scripts("rd-never", lambda m: calls.append("x") or "[]")
    result = CliRunner().invoke(
        app,
        [
            "run",
            "revision-distance-stability",
            "--drafts",
            str(DATA / "drafts20.jsonl"),
            "--weighting",
            "level",
            "--role",
            f"reviser={script}",
            "--out",
            str(tmp_path / "runs"),
        ],
    )
    assert result.exit_code == 2 and calls == []
    assert "--weighting is not used here" in " ".join(result.output.split())


def test_describe_lists_the_metrics():
    result = CliRunner().invoke(app, ["describe", "revision-distance"])
    assert result.exit_code == 0, result.output
    text = "".join(result.output.replace("│", "").split())
    for metric in (
        "revision_distance",
        "revision_distance_norm",
        "revision_distance_weighted",
        "pair_agree",
        "pair_agree_weighted",
        "weighted_chosen",
        "rouge_chosen",
        "rouge_rejected",
    ):
        assert metric in text
    assert "D_Revision(paper§3)" in text and "(App.G)" in text
    stability = CliRunner().invoke(app, ["describe", "revision-distance-stability"])
    assert "stability_abs_change" in stability.output and "meaning-preserving" in " ".join(stability.output.split())


# --- stability -----------------------------------------------------------------------------------

_STABLE_WORDS = {"big", "many", "need", "needs", "good", "often", "main", "method", "easy"}


def word_reviser(messages) -> str:
    """One edit per distinct plain word from a small set: substituting such a word changes the distance."""
    return json.dumps([edit("replace", w, w.upper(), "word") for w in stable_words(draft_in(messages))])


def stable_words(text: str) -> list[str]:
    return sorted({w for w in re.findall(r"[A-Za-z]+", text) if w.lower() in _STABLE_WORDS})


def test_stability_check_on_twenty_drafts_with_a_fixed_reviser(tmp_path, scripts):
    drafts_file = DATA / "drafts20.jsonl"
    result = CliRunner().invoke(
        app,
        [
            "revision-distance",
            "stability",
            "--drafts",
            str(drafts_file),
            "--setting",
            "reference-free",
            "--seed",
            "7",
            "--rate",
            "0.1",
            "--variants",
            "1",
            "--role",
            f"reviser={scripts('rd-words', word_reviser)}",
            "--runs",
            str(tmp_path / "runs"),
            "--display",
            "none",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Stability under word substitutions (seed 7, rate 0.1)" in " ".join(result.output.split())
    run = proseval.read_run(next((tmp_path / "runs").iterdir()))
    extra = run.results.extra["revision_distance"]
    # the expected figures, from the drafts, the perturber and the reviser's rule applied directly
    drafts = [json.loads(line) for line in drafts_file.read_text().splitlines()]
    changes = []
    for row in drafts:
        changed = perturb(row["draft"], seed=7, rate=0.1, key=row["id"])
        if changed.substitutions:
            changes.append(abs(len(stable_words(changed.text)) - len(stable_words(row["draft"]))))
    assert extra["scored"] == len(changes) == 20 - len(extra["skipped_unperturbable"])
    assert extra["mean_abs_change"] == pytest.approx(sum(changes) / len(changes))
    assert extra["share_unchanged"] == pytest.approx(sum(c == 0 for c in changes) / len(changes))
    assert 0 < extra["share_unchanged"] < 1  # some substitutions hit a counted word, some do not
    assert run.results.metrics["stability_abs_change"].mean == pytest.approx(extra["mean_abs_change"])
    assert run.results.headline == "stability_abs_change"
    assert (run.path / "revision_distance_stability.png").is_file()
    assert run.header.task_params["perturb_seed"] == 7


def test_a_perfectly_stable_reviser_never_moves(tmp_path, scripts):
    run = proseval.run(
        "revision-distance-stability",
        roles={"reviser": scripts("rd-const", ["[]"])},
        params={"drafts": str(DATA / "drafts20.jsonl"), "setting": "reference-free"},
        out=tmp_path / "runs",
    )
    extra = run.results.extra["revision_distance"]
    assert extra["mean_abs_change"] == 0.0 and extra["share_unchanged"] == 1.0 and extra["drafts_scored"] == 15
    assert extra["mean_spread"] == 0.0 and extra["max_spread"] == 0.0
    # App. H's setting by default: each text perturbed up to four ways (identical copies asked once)
    assert 15 < extra["scored"] <= 60 and all(1 <= len(d["perturbed"]) <= 4 for d in extra["per_draft"])
    assert extra["scored"] == sum(len(d["perturbed"]) for d in extra["per_draft"])
    # the drafts with no word the perturber may substitute without changing the meaning
    assert extra["skipped_unperturbable"] == ["d05", "d06", "d08", "d09", "d10"]
    assert extra["share_unchanged_ci"] == pytest.approx(list(wilson_ci(extra["scored"], extra["scored"])))


def test_four_perturbations_of_each_draft_and_the_spread_of_d(tmp_path, scripts):
    """The default: seeds 0..3 per draft; the spread of D over each draft's copies, from the reviser's rule."""
    run = proseval.run(
        "revision-distance-stability",
        roles={"reviser": scripts("rd-words4", word_reviser)},
        params={"drafts": str(DATA / "drafts20.jsonl"), "setting": "reference-free", "rate": 0.1},
        out=tmp_path / "runs",
    )
    extra = run.results.extra["revision_distance"]
    expected = {}
    for row in (json.loads(line) for line in (DATA / "drafts20.jsonl").read_text().splitlines()):
        texts = []
        for seed in range(4):
            changed = perturb(row["draft"], seed=seed, rate=0.1, key=row["id"])
            if changed.substitutions and changed.text not in texts:
                texts.append(changed.text)
        if texts:
            counts = [float(len(stable_words(t))) for t in texts]
            expected[row["id"]] = (float(len(stable_words(row["draft"]))), counts, max(counts) - min(counts))
    got = {d["draft"]: (d["original"], d["perturbed"], d["spread"]) for d in extra["per_draft"]}
    assert got == expected
    assert extra["max_spread"] == max(e[2] for e in expected.values())


# --- the scorer factory on any run -----------------------------------------------------------------


def test_the_scorer_factory_measures_a_candidates_output(tmp_path, scripts):
    candidate = scripts("rd-cand", lambda m: "" if "empty" in m[-1]["content"] else "The cat sat. It was big.")
    replies = scripts("rd-fact", lambda m: json.dumps([edit("replace", "big", "large", "word")]))
    score = revision_distance_scorer("general", weighting="size", per_words=10)
    assert score.scorer_name == "revision-distance"
    samples = [
        Sample(id="s1", input="Describe the cat.", target="The cat lay. It was large."),
        Sample(id="s2", input="say nothing: empty", target={"reference": "Nothing."}),
        Sample(id="s3", input="Describe the cat again.", target=None),
    ]
    task = Task(
        name="rd-any",
        version="1",
        dataset=lambda: samples,
        protocol=single_turn,
        scorers=[score],
        roles_required=("candidate", "reviser"),
        prompts=dict(PROMPTS),
    )
    run = proseval.run(task, model=candidate, roles={"reviser": replies}, out=tmp_path / "runs")
    records = {r.id: r for r in run.records()}
    assert records["s1"].scores["revision_distance"].value == 1.0
    assert records["s1"].scores["revision_distance_norm"].value == pytest.approx(10 / 6)  # 1 edit, 6 words
    assert records["s1"].scores["revision_distance_weighted"].value == 1.0
    assert records["s2"].scores["revision_distance"].parse_status == "empty"  # empty draft: not sent, unscored
    assert records["s3"].scores["revision_distance"].parse_status == "error"  # no reference in this setting
    assert run.results.counts.model_failures == {"empty": 1}


def test_a_failed_reviser_call_is_unscored_not_zero(tmp_path, scripts):
    failing = scripts("rd-fail", [FatalError("the reviser endpoint refused")])
    drafts = write_jsonl(tmp_path / "d.jsonl", DRAFTS[:1])
    run = proseval.run(
        "revision-distance",
        roles={"reviser": failing},
        params={"drafts": str(drafts), "setting": "reference-free"},
        out=tmp_path / "runs",
    )
    summary = run.results.metrics["revision_distance"]
    assert summary.mean is None and summary.n_unscored == 1
    record = next(run.records())
    assert record.scores["revision_distance"].parse_status == "error"
    assert "refused" in record.scores["revision_distance"].explanation


def test_a_list_cut_at_max_tokens_is_unscored_but_a_complete_one_counts(tmp_path, scripts):
    whole = json.dumps([edit("replace", "cat", "kitten", "word"), edit("delete", "big", "", "word")])
    cut = whole[: whole.index("delete") + 20]  # the second edit half written: repairable, but not the full list

    def reviser_of(messages):
        text = cut if draft_in(messages).startswith("The cat") else whole + " and then some prose that ran o"
        return Completion(text=text, finish_reason="length")

    drafts = write_jsonl(tmp_path / "d.jsonl", DRAFTS[:2])
    run = proseval.run(
        "revision-distance",
        roles={"reviser": scripts("rd-cut", reviser_of)},
        params={"drafts": str(drafts), "setting": "reference-free"},
        out=tmp_path / "runs",
    )
    records = {r.id: r for r in run.records()}
    assert records["a"].scores["revision_distance"].value is None
    assert records["a"].scores["revision_distance"].parse_status == "unparsable"
    assert "max_tokens" in records["a"].scores["revision_distance"].explanation
    assert records["b"].scores["revision_distance"].value == 2.0  # the list closed before the cut: usable


def test_re_asks_stop_at_the_first_usable_reply(tmp_path, scripts):
    replies = iter(["I think it is fine.", "[]"])
    calls: list[str] = []
    script = scripts("rd-reask", lambda m: calls.append("x") or next(replies))
    drafts = write_jsonl(tmp_path / "d.jsonl", DRAFTS[:1])
    run = proseval.run(
        "revision-distance",
        roles={"reviser": script},
        params={"drafts": str(drafts), "setting": "reference-free", "attempts": 3},
        out=tmp_path / "runs",
    )
    assert len(calls) == 2 and run.results.metrics["revision_distance"].mean == 0.0
    assert next(run.records()).scores["revision_distance"].metadata["attempts"] == 2


def test_the_task_and_its_command_group_are_registered():
    assert {"revision-distance", "revision-distance-stability"} <= set(registry.tasks())
    assert "revision-distance" in registry.command_groups()


def test_a_run_is_re_measured_with_another_reviser(tmp_path, scripts):
    drafts, refs = write_jsonl(tmp_path / "d.jsonl", DRAFTS), write_jsonl(tmp_path / "r.jsonl", REFS)
    first = proseval.run(
        "revision-distance",
        roles={"reviser": scripts("rd-empty", ["[]"])},
        params={"drafts": str(drafts), "refs": str(refs)},
        out=tmp_path / "runs",
    )
    assert first.results.metrics["revision_distance"].mean == 0.0
    result = CliRunner().invoke(
        app,
        [
            "score",
            str(first.path),
            "--role",
            f"reviser={scripts('rd-second', reviser)}",
            "--out",
            str(tmp_path / "again"),
            "--display",
            "none",
        ],
    )
    assert result.exit_code == 0, result.output
    again = proseval.read_run(next((tmp_path / "again").iterdir()))
    assert again.results.metrics["revision_distance"].mean == pytest.approx(2.0)  # 4 and 0; prose unscored
    assert again.header.roles["reviser"].spec == "scripted/rd-second"


# --- drafts from another run ---------------------------------------------------------------------


def test_a_runs_answers_become_a_drafts_file_and_are_measured(tmp_path, scripts):
    candidate = scripts("rd-writer", lambda m: "" if "empty" in m[-1]["content"] else "The cat sat. It was big.")
    samples = [
        Sample(id="s1", input="Describe the cat.", target="The cat lay. It was large."),
        Sample(id="s2", input="say nothing: empty", target={"reference": "Nothing."}),
        Sample(
            id="s3",
            input=[{"role": "user", "content": "Describe the dog."}],
            target={"instruction": "Describe the dog, briefly.", "reference": "A dog."},
        ),
        Sample(id="s4", input="Describe a bird.", target=None),
    ]
    task = Task(
        name="rd-source",
        version="1",
        dataset=lambda: samples,
        protocol=single_turn,
        scorers=[],
        roles_required=("candidate",),
    )
    source = proseval.run(task, model=candidate, out=tmp_path / "runs")
    out = tmp_path / "drafts.jsonl"
    result = CliRunner().invoke(app, ["revision-distance", "drafts", str(source.path), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "3 drafts (2 with a reference); left out 0 failed and 1 empty" in " ".join(result.output.split())
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows == [
        {
            "id": "s1",
            "draft": "The cat sat. It was big.",
            "instruction": "Describe the cat.",
            "reference": "The cat lay. It was large.",
        },
        {
            "id": "s3",
            "draft": "The cat sat. It was big.",
            "instruction": "Describe the dog, briefly.",
            "reference": "A dog.",
        },
        {"id": "s4", "draft": "The cat sat. It was big.", "instruction": "Describe a bird."},
    ]
    run = proseval.run(
        "revision-distance",
        roles={"reviser": scripts("rd-exp", reviser)},
        params={"drafts": str(out), "setting": "reference-free"},
        out=tmp_path / "rd",
    )
    assert run.results.extra["revision_distance"]["scored"] == 3


def test_drafts_from_a_folder_that_is_not_a_run_is_an_error(tmp_path):
    result = CliRunner().invoke(app, ["revision-distance", "drafts", str(tmp_path), "-o", str(tmp_path / "x")])
    assert result.exit_code == 2 and not (tmp_path / "x").exists()


def test_the_stability_command_can_ask_for_structured_output(tmp_path, scripts, monkeypatch):
    formats: list[dict] = []
    original = ScriptedModel.generate

    async def noting(self, messages, config):  # the scripted reviser, noting the response_format it is sent
        formats.append(config.response_format or {})
        return await original(self, messages, config)

    monkeypatch.setattr(ScriptedModel, "generate", noting)
    result = CliRunner().invoke(
        app,
        [
            "revision-distance",
            "stability",
            "--drafts",
            str(DATA / "drafts20.jsonl"),
            "--setting",
            "reference-free",
            "--structured",
            "--attempts",
            "2",
            "--variants",
            "1",
            "--role",
            f"reviser={scripts('rd-structured', ['[]'])}",
            "--runs",
            str(tmp_path / "runs"),
            "--display",
            "none",
        ],
    )
    assert result.exit_code == 0, result.output
    assert len(formats) == 30 and all(f["type"] == "json_schema" for f in formats)  # 15 perturbable drafts, 2 texts
    assert formats[0]["json_schema"]["schema"]["required"] == ["edits"]
    run = proseval.read_run(next((tmp_path / "runs").iterdir()))
    assert run.header.task_params["structured"] is True and run.header.task_params["attempts"] == 2
