"""What `proseval describe longweave` lists: each metric, with its unit (the paper prints the same
scores x 100, 0-100)."""

METRICS = {
    "longweave": "task score, 0-1: the task's primary metric (coverage, accuracy or a gated harmonic mean of its "
    "sub-scores; docs/longweave.md, Metrics); the paper's Task score is it x 100",
    "length_adherence": "length adherence, 0-1: 1 at the target word count, 0.5 at 25 % off (not the paper's "
    "Length score, which is not implemented)",
}
