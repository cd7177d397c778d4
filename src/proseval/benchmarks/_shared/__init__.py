"""Code that more than one benchmark uses, declared here so that benchmarks stay independent of
each other (the import contracts in pyproject.toml let every benchmark import this package, and
this package import no benchmark).

- `c3e`: C3EBench's items and its reference-anchored judge, used by `c3ebench` and `ravel`.
"""
