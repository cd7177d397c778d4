"""C3EBench's items and its reference-anchored judge: what `c3ebench` runs and `ravel` judges with."""
