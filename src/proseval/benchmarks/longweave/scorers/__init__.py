"""Rule-based LongWeave scorers: Code Fixing, KV Dictionary, State Machine, Paragraph Reordering,
and word-length helpers. Every config's `official()` reproduces the official scorer; the
defaults fix its documented bugs (see proseval docs longweave)."""

from proseval.benchmarks.longweave.scorers.cf import (
    CFCase,
    CFConfig,
    score_cf,
    score_cf_batch,
    score_cf_configs,
)
from proseval.benchmarks.longweave.scorers.kvg import KVGConfig, KVGInstance, score_kvg
from proseval.benchmarks.longweave.scorers.length import (
    count_words,
    length_adherence,
    truncate_to_words,
)
from proseval.benchmarks.longweave.scorers.pr import PRConfig, score_pr
from proseval.benchmarks.longweave.scorers.result import RuleScore
from proseval.benchmarks.longweave.scorers.sms import SMSConfig, SMSInstance, score_sms

__all__ = [
    "CFCase",
    "CFConfig",
    "KVGConfig",
    "KVGInstance",
    "PRConfig",
    "RuleScore",
    "SMSConfig",
    "SMSInstance",
    "count_words",
    "length_adherence",
    "score_cf",
    "score_cf_batch",
    "score_cf_configs",
    "score_kvg",
    "score_pr",
    "score_sms",
    "truncate_to_words",
]
