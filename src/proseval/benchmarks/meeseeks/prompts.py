"""Every prompt Meeseeks sends besides the items themselves (each replaceable with --prompt NAME=FILE)."""

from proseval.benchmarks.meeseeks.extract import EXTRACTOR_PROMPTS
from proseval.benchmarks.meeseeks.feedback import REASK_TEMPLATE
from proseval.benchmarks.meeseeks.loop import JUDGE_TEMPLATE

PROMPTS = {"judge": JUDGE_TEMPLATE, "reask": REASK_TEMPLATE, **EXTRACTOR_PROMPTS}
