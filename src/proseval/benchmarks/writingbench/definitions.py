"""What `proseval describe` lists for the WritingBench tasks: each metric, with its unit as the paper
states it (Table 3: a 10-point scale)."""

METRICS = {
    "writingbench": "score 1-10: the mean of the judge's 1-10 scores of the query's criteria (5 per query), "
    "the paper's Score",
}

CRITERIA_METRICS = {
    "criteria_valid": "1 when the criteria model's answer gave a usable list of criteria (share 0-1 over a run)",
}
