"""Judged LongWeave metrics: BioG coverage, SR answered/correct, NW recall/AP, CF relevance gate.

Pure functions (no I/O, no model calls). Per sample, a task:

1. builds the judge calls with ``calls.biog_judge_calls``, ``calls.sr_judge_calls`` or
   ``calls.nw_judge_calls`` (targets split into batches; every target keeps its stable id);
2. sends each call's ``messages`` to the judge and parses the reply with ``replies.parse_reply``
   (``None`` for a failed call), retrying calls whose parse left targets unscored if it wants;
3. combines the parsed batches with ``scores.score_biog``, ``scores.score_sr`` or
   ``scores.score_nw``.

Every target ends with a verdict or as unscored with a reason. Unscored targets leave the
denominators (they are counted in the trace); a sample whose scored share falls below
``JudgedConfig.min_scored_share`` is unscored as a whole. ``JudgedConfig.official()`` counts
unscored targets as negative instead, which is what the official code does with failed batches.

CF's relevance gate is one call: ``calls.cf_relevance_messages``, then
``replies.parse_cf_relevance``. The judge's wording is in ``prompts``, the options in ``config``.
"""
