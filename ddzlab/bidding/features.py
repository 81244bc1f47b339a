"""Hand features as scikit-learn transformers: a DataFrame of hands in, a float matrix out.

Every transformer here is stateless (``fit`` only records the feature names) and takes the
input forms `ddzlab.bidding.data.as_hands` accepts. Features that need a search (fewest plays,
hand power, greedy split value) come from `ddzlab.analysis` and are memoised per hand, so
cross-validation computes each hand once.

du-guai's three features (docs/definitions.md#svm-bidder):

>>> SeedFeatures().fit_transform(["3333456789TJQ22BR", "34567899TTJQKKAAB"]).tolist()
[[3.0, 1.0, 2.0], [1.0, 0.0, 0.0]]
>>> list(SeedFeatures().fit(["3"]).get_feature_names_out())
['jokers', 'bombs', 'twos']
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable, Sequence

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.pipeline import FeatureUnion

from ..cards import N_RANKS, R2, RA, RANK_CHARS, RB, RR, Hand
from ..rules import STANDARD, Kind
from .data import as_hands

__all__ = ["HandFeatures", "SeedFeatures", "CompactFeatures", "RankCounts", "GroupCounts", "ChainFeatures",
           "FewestPlays", "HandPower", "GreedySplitValue", "make_features", "FEATURE_SETS",
           "longest_run"]

#: ranks that may form chains: 3..A
CHAIN_RANKS = range(RA + 1)


class HandFeatures(TransformerMixin, BaseEstimator):
    """Base class: one row of numbers per hand, computed by `row` and named by `names`."""

    names: tuple[str, ...] = ()

    def row(self, hand: Hand) -> Sequence[float]:  # pragma: no cover - abstract
        raise NotImplementedError

    def fit(self, X: object, y: object = None) -> "HandFeatures":
        self.feature_names_out_ = np.array(self.feature_names(), dtype=object)
        self.n_features_out_ = len(self.feature_names_out_)
        return self

    def feature_names(self) -> list[str]:
        return list(self.names)

    def transform(self, X: object) -> np.ndarray:
        hands = as_hands(X)
        out = np.array([self.row(h) for h in hands], dtype=float)
        return out.reshape(len(hands), len(self.feature_names()))

    def get_feature_names_out(self, input_features: object = None) -> np.ndarray:
        return np.array(self.feature_names(), dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        tags.requires_fit = False
        return tags


def longest_run(counts: Sequence[int], width: int) -> int:
    """Longest run of consecutive chain ranks (3..A) holding at least ``width`` cards each."""
    best = cur = 0
    for r in CHAIN_RANKS:
        cur = cur + 1 if counts[r] >= width else 0
        best = max(best, cur)
    return best


class SeedFeatures(HandFeatures):
    """du-guai's three: jokers (red 2, black 1), bombs (four of a kind, rocket not counted), 2s."""

    names = ("jokers", "bombs", "twos")

    def row(self, hand: Hand) -> tuple[float, ...]:
        c = hand.counts
        return (c[RB] + 2 * c[RR], sum(1 for r in range(RB) if c[r] == 4), c[R2])


class RankCounts(HandFeatures):
    """How many cards of each of the 15 ranks (``n_3`` .. ``n_R``)."""

    names = tuple(f"n_{ch}" for ch in RANK_CHARS)

    def row(self, hand: Hand) -> tuple[int, ...]:
        return hand.counts


class GroupCounts(HandFeatures):
    """Cards by rank group and the hand's shape (how many ranks are singles, pairs, trios, quads).

    ``control`` counts the cards that usually win a trick (A, 2, B, R); ``rocket`` is 0/1.
    """

    names = ("low_3_7", "mid_8_J", "high_Q_K", "aces", "twos", "black_joker", "red_joker",
             "rocket", "control", "singles", "pairs", "trios", "quads", "distinct")

    def row(self, hand: Hand) -> tuple[int, ...]:
        c = hand.counts
        shape = [sum(1 for r in range(RB) if c[r] == k) for k in (1, 2, 3, 4)]
        return (sum(c[0:5]), sum(c[5:9]), c[9] + c[10], c[RA], c[R2], c[RB], c[RR],
                int(c[RB] and c[RR]), c[RA] + c[R2] + c[RB] + c[RR], *shape,
                sum(1 for x in c if x))


class ChainFeatures(HandFeatures):
    """Chains and loose cards, from the counts alone.

    * ``solo_run``/``pair_run``/``trio_run``: the longest runs of 3..A holding 1/2/3 cards
      each, counted only when they form a legal chain (≥5 solos, ≥3 pairs, ≥2 trios);
    * ``max_move``: du-guai's d(X), the most cards one move can play from the cards below 2;
    * ``loose_low``: singles below Q that lie in no run of five present ranks — the cards
      that are hard to get rid of.

    >>> ChainFeatures().fit_transform(["34567799JQK22BRAA"]).tolist()
    [[5.0, 0.0, 0.0, 5.0, 1.0]]
    """

    names = ("solo_run", "pair_run", "trio_run", "max_move", "loose_low")

    def row(self, hand: Hand) -> tuple[int, ...]:
        c = hand.counts
        solo, pair, trio = (longest_run(c, w) for w in (1, 2, 3))
        solo, pair, trio = (solo if solo >= 5 else 0, pair if pair >= 3 else 0,
                            trio if trio >= 2 else 0)
        max_move = max(max(c[:R2]), solo, 2 * pair)
        in_run = [False] * N_RANKS
        r = 0
        while r <= RA:
            s = r
            while r <= RA and c[r]:
                r += 1
            if r - s >= 5:
                for k in range(s, r):
                    in_run[k] = True
            r += 1
        loose = sum(1 for k in range(9) if c[k] == 1 and not in_run[k])
        return solo, pair, trio, max_move, loose


class CompactFeatures(HandFeatures):
    """Seven numbers that carry nearly all of call.csv's signal: the high cards one by one
    (red joker, black joker, 2s, aces), bombs, trios, and the longest solo chain (≥5, else 0).

    >>> CompactFeatures().fit_transform(["3456789TTTJJJQA2R"]).tolist()
    [[1.0, 0.0, 1.0, 1.0, 0.0, 2.0, 10.0]]
    """

    names = ("red_joker", "black_joker", "twos", "aces", "bombs", "trios", "solo_run")

    def row(self, hand: Hand) -> tuple[int, ...]:
        c = hand.counts
        solo = longest_run(c, 1)
        return (c[RR], c[RB], c[R2], c[RA], sum(1 for r in range(RB) if c[r] == 4),
                sum(1 for r in range(RB) if c[r] == 3), solo if solo >= 5 else 0)


# --- features computed by ddzlab.analysis (search); memoised per packed hand -------------
# ddzlab.analysis is imported on first use: it takes longer to import than the rest of
# ddzlab.bidding, and only these features need it.

@lru_cache(maxsize=None)
def _fewest_plays(bits: int) -> tuple[float, ...]:
    """(fewest plays, small solo plays, small pair plays) from one optimal A* sequence."""
    from ..analysis import min_plays
    res = min_plays(Hand.from_bits(bits), STANDARD)
    solos = sum(1 for m in res.moves if m.kind == Kind.SOLO and m.rank < RA)
    pairs = sum(1 for m in res.moves if m.kind == Kind.PAIR and m.rank < RA)
    return float(res.plays), float(solos), float(pairs)


@lru_cache(maxsize=None)
def _hand_power(bits: int) -> tuple[float, ...]:
    """(hand power, plays of the power split) from the weight-based evaluator (docs/definitions.md#hand-power)."""
    from ..analysis import hand_power
    res = hand_power(Hand.from_bits(bits), STANDARD)
    return float(res.power), float(len(res.moves))


@lru_cache(maxsize=None)
def _greedy_split(bits: int) -> tuple[float, ...]:
    """(plays of du-guai's greedy split, best first-lead Q(S,a); MAX_Q removed if it empties)."""
    from ..analysis import MAX_Q, greedy_q, greedy_split
    hand = Hand.from_bits(bits)
    q = greedy_q(hand, STANDARD).max_q
    return float(len(greedy_split(hand, STANDARD))), float(q - MAX_Q if q >= MAX_Q else q)


class _Cached(HandFeatures):
    _fn: Callable[[int], tuple[float, ...]]

    def row(self, hand: Hand) -> tuple[float, ...]:
        return type(self)._fn(hand.bits)


class FewestPlays(_Cached):
    """Fewest plays that empty the hand (A* in `ddzlab.analysis`), and how many of them are
    solos or pairs below A (the plays an opponent can overtake cheaply)."""

    names = ("fewest_plays", "small_solo_plays", "small_pair_plays")
    _fn = staticmethod(_fewest_plays)


class HandPower(_Cached):
    """The weight-based hand power of `ddzlab.analysis` (docs/definitions.md#hand-power) and its play count."""

    names = ("hand_power", "power_plays")
    _fn = staticmethod(_hand_power)


class GreedySplitValue(_Cached):
    """du-guai's greedy split: plays it needs and the best first-move Q(S,a) minus MAX_Q."""

    names = ("greedy_plays", "greedy_best_q")
    _fn = staticmethod(_greedy_split)


# --- named feature sets --------------------------------------------------------------------

FEATURE_SETS: dict[str, tuple[type[HandFeatures], ...]] = {
    "seed": (SeedFeatures,),
    "compact": (CompactFeatures,),
    "counts": (SeedFeatures, RankCounts, GroupCounts),
    "shape": (SeedFeatures, RankCounts, GroupCounts, ChainFeatures),
    "search": (SeedFeatures, RankCounts, GroupCounts, ChainFeatures, FewestPlays),
    "rich": (SeedFeatures, RankCounts, GroupCounts, ChainFeatures, FewestPlays, HandPower,
             GreedySplitValue),
}


def make_features(spec: str | Sequence[str | HandFeatures] = "seed") -> HandFeatures | FeatureUnion:
    """A transformer for a named feature set (`FEATURE_SETS`) or a list of transformers/names.

    >>> list(make_features("counts").fit(["3"]).get_feature_names_out())[:5]
    ['seed__jokers', 'seed__bombs', 'seed__twos', 'rank__n_3', 'rank__n_4']
    """
    if isinstance(spec, str):
        if spec not in FEATURE_SETS:
            raise ValueError(f"unknown feature set {spec!r}; one of {', '.join(FEATURE_SETS)}")
        parts: list[HandFeatures] = [cls() for cls in FEATURE_SETS[spec]]
    else:
        parts = [s if isinstance(s, HandFeatures) else _BY_NAME[s]() for s in spec]
    if len(parts) == 1:
        return parts[0]
    return FeatureUnion([(_SHORT[type(p)], p) for p in parts])


_SHORT: dict[type, str] = {SeedFeatures: "seed", CompactFeatures: "compact", RankCounts: "rank", GroupCounts: "group",
                           ChainFeatures: "chain", FewestPlays: "fewest", HandPower: "power",
                           GreedySplitValue: "greedy"}
_BY_NAME = {v: k for k, v in _SHORT.items()}
