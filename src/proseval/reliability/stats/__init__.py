"""The statistics behind "can this judge be trusted": pure functions over plain sequences, by family.

Which one applies depends on what the judge returns:

- Ordinal scores (e.g. 1-10), two raters on the same items (judge vs people, judge vs judge):
  `correlation.spearman` and `correlation.kendall_tau_b` (rank agreement: does the judge order
  items the same way), `correlation.pearson` (linear agreement), `agreement.exact_agreement` and
  `agreement.within_one` (absolute agreement on an integer scale), `agreement.weighted_kappa`
  (chance-corrected, large disagreements weigh more), `bootstrap.mean_difference` (is the judge
  harsher or more lenient, with a paired bootstrap CI), and `agreement.score_agreement`, which
  bundles them with the number of pairs used.
- Binary verdicts (0/1, pass/fail): `agreement.exact_agreement` and `agreement.weighted_kappa(x, y,
  0, 1, weights="none")` (Cohen's kappa), `alpha.krippendorff_alpha(..., "nominal")`.
- Any number of raters, missing ratings allowed: `alpha.krippendorff_alpha` at the level of the
  scale ("nominal" for labels, "ordinal" for ranks and Likert scales, "interval"/"ratio" for numbers).
- The same judge asked several times (sampling noise): `agreement.repeat_consistency`.
- System level (does the judge rank the models as people do): `correlation.system_kendall`,
  `correlation.ranking`.
- Length bias of pointwise scores: `length.length_slope`, `length.length_controlled_means`.
- Position bias: `position.flip_rate` for pairwise verdicts ("A"/"B"/"tie") under swapped
  presentation, `position.score_shift` for pointwise scores under swapped presentation.
- Intervals: `bootstrap.bootstrap` (seeded percentile bootstrap over items, vectorised over
  resamples; `bootstrap.bootstrap_together` resamples several statistics of the same items from one
  pass of draws), used by `pairs.pair_intervals` (the two-rater statistics, pairs resampled
  jointly), `alpha.alpha_interval`, `correlation.system_kendall_resampling`,
  `length.length_slope_interval`, `length.length_beta_interval`, `position.share_changed_interval`,
  `bootstrap.gap_difference_interval`, `bootstrap.ratio_interval` and `bootstrap.mean_interval`.

Conventions (`inputs`): inputs are sequences of numbers where `None` or NaN marks a missing value;
pairwise functions drop a pair when either value is missing. A statistic that is undefined on the
data (fewer than 2 pairs, a constant rater for a correlation, no expected disagreement, ...) comes
back as `None`, never NaN or 0, and never raises: a judge that gives every answer a 7 is a finding,
not a crash. ValueError is kept for programmer errors (mismatched lengths, unknown level names,
values outside a declared scale).
"""
