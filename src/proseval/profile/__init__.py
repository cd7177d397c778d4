"""A model's writing profile: the six benchmarks as one suite (`suite.yaml`), run as evaluation
sets, read back as one report with a row per benchmark and the papers' figures beside it."""
