"""The demo task: 8 bundled prompts, a judge rating and length adherence (a pipeline check)."""

from proseval import kit


@kit.task(
    "demo",
    summary="8 short bundled writing prompts: judge rating 1-10 + length adherence",
    metrics="proseval.benchmarks.demo.definitions:METRICS",
    labelling="proseval.benchmarks.demo.labelling:label_form",
    prompts="proseval.benchmarks.demo.task:TEMPLATES",
)
def demo(params):
    from proseval.benchmarks.demo.task import make_task

    return make_task()
