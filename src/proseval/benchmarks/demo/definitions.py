"""What `proseval describe demo` lists: each metric of a demo run, with its unit."""

METRICS = {
    "quality": "the judge's rating of the answer, score 1-10 (an empty answer gets 1 without a judge call)",
    "length": "length adherence, 0-1: 1 at the prompt's target word count, 0.5 at 25 % off, 0.2 at 50 % off",
}
