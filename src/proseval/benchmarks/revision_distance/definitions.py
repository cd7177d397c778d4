"""What `proseval describe` lists for the Revision Distance tasks: each metric and its source.

proseval docs revision-distance gives the full definitions; every run-level mean and rate also has a
95% interval in ``results.json`` (`stats`).
"""

DRAFTS_AND_PAIRS = {
    "revision_distance": "D_Revision (paper §3): the number of edits the reviser proposes; lower is better",
    "revision_categories.*": "edits per category: order / comparison / description (knowledge, Table 4) "
    "or add / delete / rewrite / reorder, plus other",
    "revision_levels.*": "edits per level: word, phrase, sentence, paragraph, document, reference, other (App. D)",
    "revision_distance_norm": "edits per --per-words words of the draft",
    "revision_distance_weighted": "edits weighted by level or size (--weighting)",
    "grounded_edits, ungrounded_edits": "edits whose quoted snippet is / is not found in the draft",
    "rouge.*": "ROUGE-1/2/L F1 of the draft against its reference (§4's baseline)",
    "distance_chosen, distance_rejected": "pairs: D_Revision of each text",
    "pair_agree, pair_tie": "pairs: the chosen text needs fewer / as many edits (App. G)",
    "weighted_chosen, weighted_rejected, pair_agree_weighted, pair_tie_weighted": "pairs: the same with --weighting",
    "rouge_chosen.*, rouge_rejected.*": "pairs: ROUGE F1 of each text against the pair's reference (App. G)",
}

STABILITY = {
    "distance_original, distance_perturbed": "D_Revision of the draft and of its meaning-preserving perturbed copy",
    "stability_abs_change": "|distance_perturbed - distance_original|",
    "stability_unchanged": "1 when the two distances are equal",
    "spread (per draft, run level)": "App. H: largest minus smallest distance over a draft's perturbed copies",
}
