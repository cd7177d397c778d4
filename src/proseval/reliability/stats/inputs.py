"""What the statistics take: numbers where None or NaN marks a missing value, and labels as codes."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np

Values = Sequence[float | None] | np.ndarray
Labels = Sequence[Hashable] | np.ndarray

# Scores are compared with a little slack so 7.0 and 7.000000000001 (float noise from averaging
# or parsing) count as equal; far below any meaningful score difference.
EQUAL = 1e-9


def floats(values: Values) -> np.ndarray:
    """A 1-D float array with None turned into NaN (the one missing marker used inside)."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "fiub":
        return values.astype(float).reshape(-1)
    return np.array([np.nan if v is None else v for v in values], dtype=float).reshape(-1)


def paired(x: Values, y: Values) -> tuple[np.ndarray, np.ndarray]:
    """The pairs where both values are present, as two aligned float arrays.

    Raises ValueError if the sequences differ in length: the pairing would be meaningless.
    """
    a, b = floats(x), floats(y)
    if a.size != b.size:
        raise ValueError(f"paired sequences differ in length: {a.size} and {b.size}")
    keep = ~(np.isnan(a) | np.isnan(b))
    return a[keep], b[keep]


def matrix(rows: Sequence[Sequence[float | None]] | np.ndarray, *, ragged: bool) -> np.ndarray:
    """A 2-D float array (NaN = missing). Ragged rows are padded with NaN only when `ragged`."""
    lists = [floats(row) for row in rows]
    if not lists:
        return np.empty((0, 0))
    width = max(row.size for row in lists)
    if not ragged and any(row.size != width for row in lists):
        raise ValueError("every row of the matrix must have the same length")
    out = np.full((len(lists), width), np.nan)
    for i, row in enumerate(lists):
        out[i, : row.size] = row
    return out


def finite(value: float) -> float | None:
    """A float, or None for NaN/inf (what libraries return for undefined statistics)."""
    value = float(value)
    return value if math.isfinite(value) else None


def codes(labels: Sequence[Hashable] | np.ndarray) -> tuple[np.ndarray, list[Hashable]]:
    """Integer codes for labels in order of first appearance, and the labels in code order."""
    if isinstance(labels, np.ndarray) and labels.dtype.kind in "iub" and labels.ndim == 1:
        distinct, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
        rank = np.argsort(np.argsort(first))
        return rank[inverse.reshape(-1)].astype(np.intp), distinct[np.argsort(first)].tolist()
    index = {label: code for code, label in enumerate(dict.fromkeys(labels))}
    return np.fromiter(map(index.__getitem__, labels), dtype=np.intp, count=len(labels)), list(index)


def group_demean(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Each value minus the mean of its group (`groups`: codes); along the first axis for 2-D values."""
    counts = np.bincount(groups).astype(float)
    if values.ndim == 1:
        return values - (np.bincount(groups, weights=values) / counts)[groups]
    sums = np.zeros((counts.size, values.shape[1]))
    np.add.at(sums, groups, values)
    return values - (sums / counts[:, None])[groups]
