"""What `proseval describe` lists for the C3EBench tasks: each metric, with its unit as the paper
states it (a 1-10 judge score, the human reference worth 6)."""

METRICS = {
    "c3e": "judge score 1-10 of the candidate text against the human reference (reference = 6); an empty "
    "answer gets 1 without a judge call",
}

CONSTRUCT_METRICS = {
    "built": "items built from the text / items asked of it, share 0-1",
}
