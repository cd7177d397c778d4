"""What `proseval describe meeseeks` lists: each metric, with its unit as the paper states it (a
fraction 0-1; docs/meeseeks.md, Metrics)."""

METRICS = {
    "meeseeks": "Meeseeks Score, fraction 0-1: per item, the mean over its capability tags of the share of "
    "their sub-questions passed (the last counted round); a run's mean is the paper's score",
    "utility": "Utility, 0 or 1: 1 when every sub-question of the item passed; a run's mean is the paper's "
    "Utility Rate (fraction 0-1)",
}
