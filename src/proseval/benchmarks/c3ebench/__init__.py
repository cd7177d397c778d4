"""C3EBench: Cloze, Expand, Edit and End2End writing tasks in English and Chinese, judged against the
human reference (1-10, reference = 6); plus reverse construction of items from a team's own texts."""

from proseval import kit
from proseval.benchmarks.c3ebench.params import C3EParams, ConstructParams


@kit.task(
    "c3ebench",
    summary="C3EBench: 1,258 EN/ZH items (Cloze, Expand, Edit, End2End), judge scores 1-10 with the reference = 6",
    metrics="proseval.benchmarks.c3ebench.definitions:METRICS",
    params=C3EParams,
    labelling="proseval.benchmarks.c3ebench.labelling:label_form",
    render="proseval.benchmarks.c3ebench.task:render",
    views="proseval.benchmarks.c3ebench.views:sample_views",
    prompts="proseval.benchmarks.c3ebench.prompts:PROMPTS",
    presets="proseval.benchmarks.c3ebench.presets:PRESETS",
)
def c3ebench(params: C3EParams):
    from proseval.benchmarks.c3ebench.task import make_task

    return make_task(params)


@kit.task(
    "c3ebench-construct",
    summary="build C3EBench items from your own texts (see: proseval c3ebench construct)",
    metrics="proseval.benchmarks.c3ebench.definitions:CONSTRUCT_METRICS",
    params=ConstructParams,
    prompts="proseval.benchmarks.c3ebench.construct_task:BUILDER_PROMPTS",
)
def c3ebench_construct(params: ConstructParams):
    from proseval.benchmarks.c3ebench.construct_task import construct_task

    return construct_task(params)


kit.command_group(
    "c3ebench", "proseval.benchmarks.c3ebench.cli:app", summary="C3EBench tools: build items from your own texts."
)
