"""Judging the judges: agreement between judges and with people, consistency across repeats,
length and position bias, and the evaluator card that sums them up."""
