"""Label noise in hand-labelled data: identical hands and near-identical pairs that disagree.

A human "call / don't call" label should not flip when one low card is exchanged for another
low card (say a 4 for a 6): such a swap barely changes a hand's strength. `swap_pairs` finds
every pair of hands in a labelled frame that differ by exactly one such swap, so the share of
pairs with opposite labels measures how noisy the labels are.

>>> import pandas as pd
>>> from ddzlab.bidding.data import hands_frame
>>> df = hands_frame(["3456789TJQKA2BR22", "3356789TJQKA2BR22", "3456789TJQKA2BR2K"], [1, 0, 1])
>>> swap_pairs(df)[["cards_a", "cards_b", "label_a", "label_b"]].values.tolist()
[['3356789TJQKA222BR', '3456789TJQKA222BR', 0, 1]]
"""
from __future__ import annotations

from typing import Iterable

import pandas as pd

from ..cards import COPIES
from .data import as_hands

#: ranks whose exchange should not change a bid: 3 .. T
LOW_RANKS = tuple(range(8))


def duplicate_conflicts(df: pd.DataFrame, label: str = "label") -> pd.DataFrame:
    """Identical hands that occur more than once: how often, and their labels' mean."""
    g = df.assign(_bits=[h.bits for h in as_hands(df)]).groupby("_bits")
    out = g.agg(cards=("cards", "first"), n=(label, "size"), mean_label=(label, "mean"))
    return out[out.n > 1].reset_index(drop=True)


def swap_pairs(df: pd.DataFrame, ranks: Iterable[int] = LOW_RANKS,
               label: str = "label") -> pd.DataFrame:
    """Pairs of hands differing by one card of ``ranks`` exchanged for another of ``ranks``."""
    ranks = tuple(ranks)
    hands = as_hands(df)
    labels = df[label].to_numpy()
    index: dict[int, list[int]] = {}
    for i, h in enumerate(hands):
        index.setdefault(h.bits, []).append(i)
    rows = []
    for i, h in enumerate(hands):
        c = h.counts
        for a in ranks:              # give away one card of rank a ...
            if not c[a]:
                continue
            for b in ranks:          # ... take one of rank b (b > a: each pair once)
                if b <= a or c[b] >= COPIES[b]:
                    continue
                other = h.bits - (1 << 4 * a) + (1 << 4 * b)
                for j in index.get(other, ()):
                    rows.append((str(h), str(hands[j]), int(labels[i]), int(labels[j])))
    out = pd.DataFrame(rows, columns=["cards_a", "cards_b", "label_a", "label_b"])
    out["conflict"] = out.label_a != out.label_b
    return out
