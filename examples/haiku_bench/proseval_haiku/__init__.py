"""A template benchmark: importing this module registers its task and its command group."""

from proseval import kit
from proseval_haiku.params import HaikuParams


@kit.task(
    "haiku", summary="template benchmark: haiku to a theme, judged 1-10, syllables checked", params=HaikuParams,
    labelling="proseval_haiku.labelling:label_form",
    views="proseval_haiku.views:sample_views",
    prompts="proseval_haiku.task:PROMPTS",
)
def haiku(params: HaikuParams):
    from proseval_haiku.task import make_task  # heavy imports stay out of `proseval list`

    return make_task(params)


kit.command_group("haiku", "proseval_haiku.cli:app", summary="Haiku tools.")
