"""WritingBench: general writing over 6 domains and 100 subdomains, judged per query-specific criterion."""

from pathlib import Path

from proseval import kit
from proseval.benchmarks.writingbench.params import CriteriaParams, CurateParams, WritingBenchParams


@kit.task(
    "writingbench",
    summary="WritingBench v2: 1,000 queries x 5 query-specific criteria, judge scores 1-10",
    metrics="proseval.benchmarks.writingbench.definitions:METRICS",
    params=WritingBenchParams,
    labelling="proseval.benchmarks.writingbench.labelling:label_form",
    render="proseval.benchmarks.writingbench.render:render",
    views="proseval.benchmarks.writingbench.views:sample_views",
    prompts="proseval.benchmarks.writingbench.judging:JUDGE_PROMPTS",
    presets="proseval.benchmarks.writingbench.presets:PRESETS",
)
def writingbench(params: WritingBenchParams):
    from proseval.benchmarks.writingbench.task import make_task

    return make_task(params)


@kit.task(
    "writingbench-criteria",
    summary="write 5 WritingBench-style criteria for your own queries (see: proseval writingbench criteria)",
    metrics="proseval.benchmarks.writingbench.definitions:CRITERIA_METRICS",
    params=CriteriaParams,
    prompts="proseval.benchmarks.writingbench.criteria:CRITERIA_PROMPTS",
)
def writingbench_criteria(params: CriteriaParams):
    from proseval.benchmarks.writingbench.userdata import criteria_task

    return criteria_task(Path(params.in_file))


@kit.task(
    "writingbench-curate",
    summary="score instruction/response pairs with generated criteria (see: proseval writingbench curate)",
    metrics="proseval.benchmarks.writingbench.definitions:METRICS",
    params=CurateParams,
    labelling="proseval.benchmarks.writingbench.labelling:label_form",
    views="proseval.benchmarks.writingbench.views:sample_views",
    prompts="proseval.benchmarks.writingbench.userdata:CURATE_PROMPTS",
)
def writingbench_curate(params: CurateParams):
    from proseval.benchmarks.writingbench.task import make_scorer
    from proseval.benchmarks.writingbench.userdata import curate_task

    scorer = make_scorer(WritingBenchParams(judge_mode=params.judge_mode, judge_attempts=params.judge_attempts))
    return curate_task(Path(params.in_file), scorer)


kit.command_group(
    "writingbench",
    "proseval.benchmarks.writingbench.cli:app",
    summary="WritingBench tools: download the data, write criteria, curate training data.",
)
