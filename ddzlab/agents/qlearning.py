"""`QLearningAgent`: du-guai's tabular Q-learning player (seed 000, REFERENCE §4).

Two Q-tables over abstracted states and actions, as the seed defines them:

* **lead** (the seat leads a trick): 12 features → 1,244,160 states × 17 actions;
* **follow** (the seat answers a move): 6 features → 20,736 states × 9 actions.

The abstraction rests on the greedy split (`ddzlab.analysis.greedy`): the cards below the 2
are cut into *segments* of consecutive ranks (the seed's "连续的状态"); in each segment the
plays without kickers whose Q(S, a) is the segment's best are the hand's *good plays*, sorted
by rank into solos, pairs, trios, bombs, solo chains of five and other chains; 2s and jokers
join the list of their size (a lone 2 is a solo, 22 a pair ...; both jokers are the rocket).
A concrete move's split cost ``delta`` is the Q it loses against the best of every segment
it touches, plus 1 per 2 and 2 per joker it spends (the seed's weights for high cards).

Lead actions (the seed's table): 0 force the lowest card, 1–3 small/middle/large good solo,
4 force the highest card, 5–7 small/middle/large good pair, 8–9 small/large trio (with the
kickers of least ``delta``), 10–11 small/large bomb, 12 rocket, 13–14 small/large chain of
five, 15 another chain or plane, 16 four with two. Actions 0 and 4 are offered only to a
farmer in the seed's situations (an opponent or the partner down to one card).

Follow actions: 0 pass, 1–4 the smallest/smaller/larger/largest reply of least ``delta``,
5 the highest reply whatever it breaks, 6 smallest bomb, 7 largest bomb, 8 rocket.

Every abstract action resolves to one of the legal moves ddzlab's generator lists
(`ddzlab.moves`): nothing here enumerates combinations.

Acting is ε-greedy on the table of the situation (ties broken at random). Learning
(`Learner`) uses the seed's rewards: −1 per decision, −1 − 0.1 × (number of offered
actions) for its "bad" actions (lead 0, 4, 10, 11, 12; follow 0, 5, 6, 7, 8), ±40 at the
end, with α = 0.5, γ = 0.8, ε = 0.1 and tables starting at 0. The update is standard
Q-learning, ``Q += α(r + γ max Q′ − Q)``; ``rule="seed"`` gives the seed's
``Q += α(r + γ(max Q′ − Q))``. The role feature is the seat's own (the seed computed it
from seat −1; ``role_bug=True`` reproduces that).

``make_agent("qlearning")`` loads the table shipped in ``data/qlearning/`` (see
`DEFAULT_TABLE`); ``make_agent("qlearning:path=FILE")`` another one.
"""
from __future__ import annotations

import json
import math
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import numpy as np

from ..analysis.greedy import MAX_Q, next_play_size, q_value
from ..cards import R2, RB, RR, bits_size
from ..config import DATA_DIR
from ..deals import SeedLike, as_rng
from ..errors import ModelFileError
from ..game import Observation
from ..moves import PASS, Move, detect, generator
from ..rules import STANDARD, Kind
from .base import register_agent
from .smallest import SmallestAgent

# -- sizes ----------------------------------------------------------------------------
N_LEAD_FEATURES, N_FOLLOW_FEATURES = 12, 6
N_LEAD_ACTIONS, N_FOLLOW_ACTIONS = 17, 9
#: ranges of the lead features after the seed's packing of (min, max) pairs with min ≤ max
LEAD_RADIX = (10, 6, 3, 3, 2, 3, 2, 3, 8, 8)
FOLLOW_RADIX = (6, 3, 3, 8, 8, 6)
N_LEAD_STATES = int(np.prod(LEAD_RADIX))        # 1,244,160
N_FOLLOW_STATES = int(np.prod(FOLLOW_RADIX))    # 20,736
_NMAP = (0, 1, 3, 6)                            # (min, max) → min + _NMAP[max]

LEAD_BAD = (0, 4, 10, 11, 12)
FOLLOW_BAD = (0, 5, 6, 7, 8)
LEAD_NAMES = ("force lowest", "small solo", "middle solo", "large solo", "force highest",
              "small pair", "middle pair", "large pair", "small trio", "large trio",
              "small bomb", "large bomb", "rocket", "small chain5", "large chain5",
              "other chain/plane", "four with two")
FOLLOW_NAMES = ("pass", "smallest", "smaller", "larger", "largest", "force highest",
                "small bomb", "large bomb", "rocket")

#: the seed's hyper-parameters and rewards
ALPHA, GAMMA, EPSILON = 0.5, 0.8, 0.1
STEP_REWARD, WIN_REWARD = -1.0, 40.0

FORMAT_TAG = "ddzlab-qlearning"
FORMAT_VERSION = 1
DEFAULT_TABLE = DATA_DIR / "qlearning" / "qtable.npz"
TRAIN_COMMAND = ("ddzlab train qlearning --games 10000 --seed 0 --opponents split_random "
                 "--tie prior --q-init -40 --rewards outcome --rule mc --gamma 1 --alpha 0.01 "
                 "--average --caution 40 --min-visits 30 --epsilon 0.05 "
                 f"--out {DEFAULT_TABLE.relative_to(DATA_DIR.parent)}")

LEAD, FOLLOW = 0, 1
_PLAIN = (Kind.SOLO, Kind.PAIR, Kind.TRIO, Kind.BOMB, Kind.SOLO_CHAIN, Kind.PAIR_CHAIN,
          Kind.TRIO_CHAIN)
_LOW_MASK = (1 << (4 * R2)) - 1                 # nibbles of 3..A
_GEN = generator(STANDARD)


# -- small helpers --------------------------------------------------------------------
def hand_to_state(n: int) -> int:
    """The seed's bucket of a hand size: 1..5 → 0..4, 6–9 → 5, 10–14 → 6, ≥ 15 → 7."""
    if n <= 5:
        return max(n - 1, 0)
    return 5 if n <= 9 else 6 if n <= 14 else 7


def _f1(v: float) -> int:
    return 0 if v <= 4 else 1 if v <= 8 else 2 if v <= 12 else 3


def _f2(v: float) -> int:
    return 0 if v <= 5 else 1 if v <= 10 else 2


def _value(rank: int) -> int:
    """The seed's card value: 3 → 1 ... 2 → 13, B → 14, R → 15."""
    return rank + 1


def segments(bits: int) -> list[int]:
    """The cards below the 2 cut into runs of consecutive ranks (packed), low to high."""
    out, cur = [], 0
    for r in range(R2):
        nib = (bits >> (4 * r)) & 15
        if nib:
            cur |= nib << (4 * r)
        elif cur:
            out.append(cur)
            cur = 0
    if cur:
        out.append(cur)
    return out


def _mask(seg: int) -> int:
    """All four bits of every rank present in ``seg``."""
    m = 0
    for r in range(R2):
        if (seg >> (4 * r)) & 15:
            m |= 15 << (4 * r)
    return m


_SEG_CACHE: dict[int, tuple[int, int, tuple[Move, ...]]] = {}


def segment_best(seg: int) -> tuple[int, int, tuple[Move, ...]]:
    """(rank mask, best Q, good plays) of one segment: its plays without kickers whose
    greedy Q(S, a) (`ddzlab.analysis.greedy.q_value`, as `greedy_q` computes it on the
    segment) is the best. Memoised."""
    hit = _SEG_CACHE.get(seg)
    if hit is None:
        plain = [(m, q_value(seg, m)) for m in _GEN.leading(seg) if m.kind in _PLAIN]
        best = max(q for _, q in plain)
        hit = (_mask(seg), best, tuple(m for m, q in plain if q == best))
        _SEG_CACHE[seg] = hit
    return hit


def _part_q(seg: int, part: int) -> int:
    """Q(S, a) of the cards ``part`` taken from segment ``seg`` (the greedy formula)."""
    size = bits_size(part)
    r = 0
    if size < 4:
        for i in range(R2):
            if (part >> (4 * i)) & 15 and (seg >> (4 * i)) & 15 == 4:
                r = -1
                break
    rest = seg - part
    return (MAX_Q if rest == 0 else next_play_size(rest)) + size + r


def move_delta(bits: int, cards: int) -> int:
    """How much a play of ``cards`` from hand ``bits`` spoils the greedy split: Q lost
    against the best play in every segment it touches, +1 per 2 and +2 per joker."""
    total = 0
    low = cards & _LOW_MASK
    if low:
        for seg in segments(bits):
            mask, best, _ = segment_best(seg)
            part = low & mask
            if part:
                total += max(0, best - _part_q(seg, part))
    total += (cards >> (4 * R2)) & 15
    total += 2 * (((cards >> (4 * RB)) & 15) + ((cards >> (4 * RR)) & 15))
    return total


_SINGLES: dict[int, Move] = {}


def _plain_move(cards: int) -> Move:
    m = _SINGLES.get(cards)
    if m is None:
        m = _SINGLES[cards] = detect(cards)
    return m


def _pick(lst: Sequence[Move], k: int) -> Move:
    """The seed's choice in a sorted list: 0 smallest, 1 middle, 2 largest."""
    return lst[(0, len(lst) // 2, -1)[k]]


def _rank_key(m: Move) -> tuple[int, int]:
    return (m.rank + m.length, m.cards)


# -- leading --------------------------------------------------------------------------
@dataclass(frozen=True)
class LeadSplit:
    """The good plays of a hand when it leads (see the module docstring)."""
    bits: int
    solos: tuple[Move, ...]
    pairs: tuple[Move, ...]
    trios: tuple[Move, ...]
    bombs: tuple[Move, ...]
    chain5: tuple[Move, ...]
    other: tuple[Move, ...]          # longer solo chains, pair chains, then trio chains
    planes: int                      # how many of ``other`` are trio chains
    rocket: Optional[Move]
    lowest: Move
    highest: Move
    four_two: bool                   # a good bomb could carry two kickers
    features: tuple[int, ...]        # the first nine lead features
    actions: tuple[int, ...]         # the category actions (0 and 4 are added per seat)


_LEAD_CACHE: dict[int, LeadSplit] = {}


def lead_split(bits: int) -> LeadSplit:
    """The lead abstraction of a packed hand (memoised by the hand)."""
    hit = _LEAD_CACHE.get(bits)
    if hit is not None:
        return hit
    groups: dict[Kind, list[Move]] = {k: [] for k in _PLAIN}
    for seg in segments(bits):
        for m in segment_best(seg)[2]:
            groups[m.kind].append(m)
    pair_ranks = {m.rank for m in groups[Kind.PAIR]}
    solos = [m for m in groups[Kind.SOLO] if m.rank not in pair_ranks]
    pairs, trios, bombs = groups[Kind.PAIR], groups[Kind.TRIO], groups[Kind.BOMB]
    twos = (bits >> (4 * R2)) & 15
    if twos:
        (solos, pairs, trios, bombs)[twos - 1].append(_plain_move(twos << (4 * R2)))
    b, r = (bits >> (4 * RB)) & 15, (bits >> (4 * RR)) & 15
    rocket = _plain_move(bits & (255 << (4 * RB))) if b and r else None
    if b + r == 1:
        solos.append(_plain_move(bits & (255 << (4 * RB))))
    chains = groups[Kind.SOLO_CHAIN]
    chain5 = sorted((m for m in chains if m.length == 5), key=_rank_key)
    other = sorted((m for m in chains if m.length != 5), key=_rank_key)
    other += sorted(groups[Kind.PAIR_CHAIN], key=_rank_key)
    planes = sorted(groups[Kind.TRIO_CHAIN], key=_rank_key)
    solos.sort(key=_rank_key)
    pairs.sort(key=_rank_key)
    trios.sort(key=_rank_key)
    bombs.sort(key=_rank_key)
    ranks = [i for i in range(RR + 1) if (bits >> (4 * i)) & 15]
    lowest, highest = _plain_move(1 << (4 * ranks[0])), _plain_move(1 << (4 * ranks[-1]))
    four_two = bool(bombs) and bits_size(bits) >= 6      # any two other cards are kickers

    f = [0] * 9
    if solos:
        v = [_value(m.rank) for m in solos]
        f[0] = _f1(v[0] if len(v) == 1 else (v[0] + v[1]) / 2)
        f[1] = _f1(max(v))
    if pairs:
        v = [_value(m.rank) for m in pairs]
        f[2], f[3] = _f2(v[0]), _f2(max(v))
    f[4] = min(len(trios) + 2 * len(planes), 2)
    if chain5:
        f[5] = _value(max(m.rank + 4 for m in chain5)) // 5
    f[6] = int(bool(other or planes))
    f[7] = min(len(bombs), 2)
    f[8] = int(rocket is not None)

    acts: list[int] = []
    for lst, base, n in ((solos, 1, 3), (pairs, 5, 3), (trios, 8, 2), (bombs, 10, 2),
                         (chain5, 13, 2)):
        acts.extend(base + i for i in range(min(n, len(lst))))
    if rocket is not None:
        acts.append(12)
    if other or planes:
        acts.append(15)
    if four_two:
        acts.append(16)
    hit = LeadSplit(bits, tuple(solos), tuple(pairs), tuple(trios), tuple(bombs), tuple(chain5),
                    tuple(other + planes), len(planes), rocket, lowest, highest, four_two,
                    tuple(f), tuple(sorted(acts)))
    if len(_LEAD_CACHE) > 200_000:
        _LEAD_CACHE.clear()
    _LEAD_CACHE[bits] = hit
    return hit


def lead_actions(split: LeadSplit, role: int, hand_p: int, hand_n: int) -> list[int]:
    """The lead actions offered: the seed's forced solos for a farmer, then the split's."""
    first: list[int] = []
    if role == 1:
        if hand_p == 1:
            first = [4]
        elif hand_n == 1:
            first = [0]
    elif role == 2 and hand_n == 1:
        first = [4]
    acts = first + [a for a in split.actions if a not in first]
    return acts or [0]


def lead_features(split: LeadSplit, role: int, hand_p: int, hand_n: int) -> tuple[int, ...]:
    """The seed's 12 lead features (solo min/max, pair min/max, trios, chain-of-5 height,
    other chains, bombs, rocket, role, bucketed sizes of the previous and next hands)."""
    return split.features + (role, hand_to_state(hand_p), hand_to_state(hand_n))


def lead_index(f: Sequence[int]) -> int:
    """Row of the lead table for 12 features (the seed's packing, 0..1,244,159)."""
    vals = (f[0] + _NMAP[f[1]], f[2] + _NMAP[f[3]]) + tuple(f[4:])
    idx = 0
    for v, n in zip(vals, LEAD_RADIX):
        if not 0 <= v < n:
            raise ValueError(f"lead features {tuple(f)} out of range")
        idx = idx * n + v
    return idx


def _with_kickers(split: LeadSplit, main: Move, kinds: tuple[Kind, ...],
                  legal: Sequence[Move]) -> Move:
    """The legal play built on ``main`` (same kind family, rank and length) with the least
    split cost; ties go to the play that sheds more cards, then the lower kickers."""
    cands = [m for m in legal if m.kind in kinds and m.rank == main.rank
             and m.length == main.length and m.cards & main.cards == main.cards]
    if not cands:
        return main
    return min(cands, key=lambda m: (move_delta(split.bits, m.cards), -m.size, m.cards))


_TRIO_KINDS = (Kind.TRIO, Kind.TRIO_SOLO, Kind.TRIO_PAIR)
_PLANE_KINDS = (Kind.TRIO_CHAIN, Kind.PLANE_SOLO, Kind.PLANE_PAIR)
_FOUR_KINDS = (Kind.FOUR_TWO_SOLO, Kind.FOUR_TWO_PAIR)


def resolve_lead(split: LeadSplit, action: int, legal: Sequence[Move]) -> Move:
    """The concrete play of lead ``action`` (``legal``: the hand's legal leading moves)."""
    if action == 0:
        return split.lowest
    if action == 4:
        return split.highest
    if 1 <= action <= 3:
        return _pick(split.solos, action - 1)
    if 5 <= action <= 7:
        return _pick(split.pairs, action - 5)
    if action in (8, 9):
        return _with_kickers(split, _pick(split.trios, action - 8), _TRIO_KINDS, legal)
    if action in (10, 11):
        return _pick(split.bombs, action - 10)
    if action == 12:
        return split.rocket
    if action in (13, 14):
        return _pick(split.chain5, action - 13)
    if action == 15:
        main = split.other[0]
        if main.kind is Kind.TRIO_CHAIN:
            return _with_kickers(split, main, _PLANE_KINDS, legal)
        return main
    if action == 16:
        cands = [m for m in legal if m.kind in _FOUR_KINDS
                 and any(m.rank == b.rank for b in split.bombs)]
        return min(cands, key=lambda m: (move_delta(split.bits, m.cards), m.rank, m.cards))
    raise ValueError(f"lead action {action} is not 0..16")


# -- following ------------------------------------------------------------------------
@dataclass(frozen=True)
class FollowSplit:
    """The replies of a hand to a move, sorted for the follow actions."""
    good: tuple[Move, ...]           # ordinary replies of least split cost, by rank
    highest: Optional[Move]          # the highest ordinary reply (least cost among equals)
    bombs: tuple[Move, ...]
    rocket: Optional[Move]
    min_delta: int
    actions: tuple[int, ...]


def follow_split(bits: int, legal: Sequence[Move]) -> FollowSplit:
    """The follow abstraction of hand ``bits`` given its legal replies (pass included)."""
    plain, bombs, rocket = [], [], None
    for m in legal:
        k = m.kind
        if k is Kind.PASS:
            continue
        if k is Kind.BOMB:
            bombs.append(m)
        elif k is Kind.ROCKET:
            rocket = m
        else:
            plain.append(m)
    good: list[Move] = []
    highest = None
    min_delta = 0
    if plain:
        scored = [(move_delta(bits, m.cards), m) for m in plain]
        min_delta = min(d for d, _ in scored)
        good = sorted((m for d, m in scored if d == min_delta), key=_rank_key)
        highest = max(scored, key=lambda dm: (dm[1].rank, -dm[0], -dm[1].cards))[1]
    bombs.sort(key=_rank_key)
    acts = [0] + list(range(1, 1 + min(4, len(good))))
    if plain:
        acts.append(5)
    if bombs:
        acts.append(6)
    if len(bombs) > 1:
        acts.append(7)
    if rocket is not None:
        acts.append(8)
    return FollowSplit(tuple(good), highest, tuple(bombs), rocket, min_delta, tuple(acts))


def follow_features(split: FollowSplit, role: int, owner_role: int, hand_p: int, hand_n: int,
                    last_size: int) -> tuple[int, ...]:
    """The seed's 6 follow features: best split cost (≤ 5), own role, role of the player of
    the move to beat, bucketed sizes of the previous and next hands, its size (≤ 5)."""
    return (min(split.min_delta, 5), role, owner_role, hand_to_state(hand_p),
            hand_to_state(hand_n), min(last_size, 5))


def follow_index(f: Sequence[int]) -> int:
    """Row of the follow table for 6 features (0..20,735)."""
    idx = 0
    for v, n in zip(f, FOLLOW_RADIX):
        if not 0 <= v < n:
            raise ValueError(f"follow features {tuple(f)} out of range")
        idx = idx * n + v
    return idx


def resolve_follow(split: FollowSplit, action: int) -> Move:
    """The concrete reply of follow ``action``."""
    if action == 0:
        return PASS
    g = split.good
    if 1 <= action <= 4:
        n = len(g)
        return g[(0, n // 2, int(n // 1.5), n - 1)[action - 1]]
    if action == 5:
        return split.highest
    if action == 6:
        return split.bombs[0]
    if action == 7:
        return split.bombs[-1]
    if action == 8:
        return split.rocket
    raise ValueError(f"follow action {action} is not 0..8")


# -- one decision ---------------------------------------------------------------------
@dataclass
class Decision:
    """A seat's abstract situation: which table, its row, the actions offered, and how to
    turn an action into a move."""
    table: int                       # LEAD or FOLLOW
    state: int
    actions: list[int]
    split: Any
    legal: Sequence[Move]
    partner: bool = False            # following the partner's move

    @property
    def order(self) -> tuple[int, ...]:
        """Rank of each action in the tie-break prior (see `choose`)."""
        if self.table == LEAD:
            return _LEAD_ORDER
        return _PARTNER_ORDER if self.partner else _FOLLOW_ORDER

    def move(self, action: int) -> Move:
        if self.table == LEAD:
            return resolve_lead(self.split, action, self.legal)
        return resolve_follow(self.split, action)


def decide(bits: int, legal: Sequence[Move], seat: int, landlord: int, sizes: Sequence[int],
           last_move: Optional[Move], last_seat: Optional[int], role_bug: bool = False) -> Decision:
    """The abstract decision of ``seat`` (hand ``bits``, its ``legal`` moves, public facts)."""
    role = ((-1 if role_bug else seat) - landlord) % 3
    hand_p, hand_n = sizes[(seat - 1) % 3], sizes[(seat + 1) % 3]
    if last_move is None:
        sp = lead_split(bits)
        return Decision(LEAD, lead_index(lead_features(sp, role, hand_p, hand_n)),
                        lead_actions(sp, role, hand_p, hand_n), sp, legal)
    fs = follow_split(bits, legal)
    f = follow_features(fs, role, (last_seat - landlord) % 3, hand_p, hand_n, last_move.size)
    return Decision(FOLLOW, follow_index(f), list(fs.actions), fs, legal,
                    role != 0 and f[2] != 0)


def decide_obs(obs: Observation, role_bug: bool = False) -> Decision:
    """`decide` from a seat's `Observation`."""
    if obs.players != 3 or obs.landlord is None:
        raise ValueError("the Q-learning abstraction needs a three-player game with a landlord")
    return decide(obs.hand.bits, obs.legal_moves, obs.seat, obs.landlord, obs.cards_left,
                  obs.last_move, obs.last_seat, role_bug)


# -- tables ---------------------------------------------------------------------------
class QTables:
    """The lead and follow Q-tables (every entry starts at ``q_init``: 0 in the seed),
    visit counts per state, and free-form metadata (``meta``)."""

    def __init__(self, q_init: float = 0.0) -> None:
        self.q_init = float(q_init)
        self.lead = np.full((N_LEAD_STATES, N_LEAD_ACTIONS), q_init, np.float32)
        self.follow = np.full((N_FOLLOW_STATES, N_FOLLOW_ACTIONS), q_init, np.float32)
        self.lead_visits = np.zeros((N_LEAD_STATES, N_LEAD_ACTIONS), np.uint32)
        self.follow_visits = np.zeros((N_FOLLOW_STATES, N_FOLLOW_ACTIONS), np.uint32)
        self.meta: dict = {}

    def table(self, which: int) -> np.ndarray:
        return self.lead if which == LEAD else self.follow

    def visits(self, which: int) -> np.ndarray:
        return self.lead_visits if which == LEAD else self.follow_visits

    def coverage(self) -> dict[str, float]:
        """Share of each table's states visited at least once."""
        return {"lead": float(np.count_nonzero(self.lead_visits.any(axis=1))) / N_LEAD_STATES,
                "follow": float(np.count_nonzero(self.follow_visits.any(axis=1))) / N_FOLLOW_STATES}

    def copy(self) -> "QTables":
        t = object.__new__(QTables)
        t.q_init, t.meta = self.q_init, json.loads(json.dumps(self.meta))
        t.lead, t.follow = self.lead.copy(), self.follow.copy()
        t.lead_visits, t.follow_visits = self.lead_visits.copy(), self.follow_visits.copy()
        return t

    def arrays(self) -> dict[str, np.ndarray]:
        """The tables in the sparse form they are saved in (rows that differ from the
        initial value or were visited)."""
        init = np.float32(self.q_init)
        lr = np.flatnonzero(self.lead_visits.any(axis=1) | np.any(self.lead != init, axis=1))
        fr = np.flatnonzero(self.follow_visits.any(axis=1) | np.any(self.follow != init, axis=1))
        lr, fr = lr.astype(np.int32), fr.astype(np.int32)
        return {"lead_rows": lr, "lead_q": self.lead[lr], "lead_visits": self.lead_visits[lr],
                "follow_rows": fr, "follow_q": self.follow[fr],
                "follow_visits": self.follow_visits[fr]}

    def save(self, path: Union[str, Path], extra: Optional[dict[str, np.ndarray]] = None) -> Path:
        """Write a compressed .npz (format tag, version, sparse tables, metadata)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays = self.arrays()
        arrays.update(extra or {})
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(tmp, format=np.array(FORMAT_TAG), version=np.array(FORMAT_VERSION),
                            shapes=np.array([N_LEAD_STATES, N_LEAD_ACTIONS, N_FOLLOW_STATES,
                                             N_FOLLOW_ACTIONS]), q_init=np.array(self.q_init),
                            meta=np.array(json.dumps(self.meta)), **arrays)
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, path: Union[str, Path]) -> "QTables":
        """Read a table written by `save`; a corrupt or foreign file raises `ModelFileError`."""
        return _load(Path(path))[0]


def _load(path: Path) -> tuple[QTables, dict[str, np.ndarray]]:
    """The tables of a file and its other arrays (a checkpoint's training state)."""
    if not path.exists():
        raise ModelFileError(f"{path}: no such Q-table file")
    try:
        with np.load(path, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
        raise ModelFileError(f"{path}: not a readable .npz Q-table ({e})") from None
    fmt = str(data.get("format", ""))
    if fmt != FORMAT_TAG:
        raise ModelFileError(f"{path}: format tag {fmt!r}, expected {FORMAT_TAG!r}")
    version = int(data.get("version", -1))
    if version != FORMAT_VERSION:
        raise ModelFileError(f"{path}: format version {version}, this ddzlab reads "
                             f"version {FORMAT_VERSION}")
    want = [N_LEAD_STATES, N_LEAD_ACTIONS, N_FOLLOW_STATES, N_FOLLOW_ACTIONS]
    shapes = [int(x) for x in data.get("shapes", [])]
    if shapes != want:
        raise ModelFileError(f"{path}: table shapes {shapes}, expected {want} "
                             "(lead states, lead actions, follow states, follow actions)")
    try:
        q_init = float(data["q_init"])
    except (KeyError, TypeError, ValueError):
        raise ModelFileError(f"{path}: missing or bad initial value q_init") from None
    if not np.isfinite(q_init):
        raise ModelFileError(f"{path}: initial value q_init is {q_init}")
    t = QTables(q_init)
    for name, n_states, n_act in (("lead", N_LEAD_STATES, N_LEAD_ACTIONS),
                                  ("follow", N_FOLLOW_STATES, N_FOLLOW_ACTIONS)):
        try:
            rows, q, visits = data[f"{name}_rows"], data[f"{name}_q"], data[f"{name}_visits"]
        except KeyError as e:
            raise ModelFileError(f"{path}: missing array {e.args[0]!r}") from None
        if q.ndim != 2 or q.shape != (len(rows), n_act) or visits.shape != q.shape:
            raise ModelFileError(f"{path}: {name} arrays have shapes {q.shape}, {rows.shape}, "
                                 f"{visits.shape}; expected ({len(rows)}, {n_act}) rows")
        if len(rows) and (rows.min() < 0 or rows.max() >= n_states):
            raise ModelFileError(f"{path}: {name} rows outside 0..{n_states - 1}")
        if not np.all(np.isfinite(q)):
            raise ModelFileError(f"{path}: {name} table holds NaN or infinite values")
        t.table(LEAD if name == "lead" else FOLLOW)[rows] = q
        t.visits(LEAD if name == "lead" else FOLLOW)[rows] = visits
    try:
        t.meta = json.loads(str(data["meta"]))
    except (KeyError, json.JSONDecodeError) as e:
        raise ModelFileError(f"{path}: bad metadata ({e})") from None
    return t, data


_TABLE_CACHE: dict[tuple[str, float], QTables] = {}


def load_tables(path: Union[str, Path, None] = None) -> QTables:
    """The tables in ``path`` (default `DEFAULT_TABLE`), cached per file and mtime; a
    missing default table raises `ModelFileError` naming the command that makes it."""
    p = Path(path) if path is not None else DEFAULT_TABLE
    if not p.exists():
        hint = f"; make it with:  {TRAIN_COMMAND}" if path is None else ""
        raise ModelFileError(f"no trained Q-table at {p}{hint}")
    key = (str(p.resolve()), p.stat().st_mtime)
    t = _TABLE_CACHE.get(key)
    if t is None:
        t = QTables.load(p)
        _TABLE_CACHE.clear()
        _TABLE_CACHE[key] = t
    return t


# -- acting and learning --------------------------------------------------------------
#: the tie-break prior (``tie="prior"``), best first. Leading: the seed's forced solos (only
#: offered when an opponent or the partner is down to one card), then the plays that shed
#: the most cards, small before large, bombs and the rocket last. Following: the smallest
#: good reply, pass, then the costly replies; after the partner's move, pass first.
LEAD_PRIOR = (4, 0, 15, 13, 8, 5, 1, 14, 9, 6, 2, 7, 3, 16, 10, 11, 12)
FOLLOW_PRIOR = (1, 2, 3, 4, 0, 5, 6, 7, 8)
PARTNER_PRIOR = (0, 1, 2, 3, 4, 5, 6, 7, 8)
_LEAD_ORDER = tuple(LEAD_PRIOR.index(a) for a in range(N_LEAD_ACTIONS))
_FOLLOW_ORDER = tuple(FOLLOW_PRIOR.index(a) for a in range(N_FOLLOW_ACTIONS))
_PARTNER_ORDER = tuple(PARTNER_PRIOR.index(a) for a in range(N_FOLLOW_ACTIONS))
TIES = ("random", "prior")
#: "standard" Q-learning, the "seed"'s variant, or "mc": every decision of a game moves
#: toward its discounted return (no bootstrapping, so no overestimation from max Q′)
RULES = ("standard", "seed", "mc")
#: "seed": −1 per decision, −1 − 0.1 n for a "bad" action, ±40 at the end;
#: "outcome": only the ±40 at the end (with γ = 1, Q estimates the chance of winning)
REWARDS = ("seed", "outcome")


def choose(q_row: np.ndarray, actions: Sequence[int], epsilon: float,
           rng: np.random.Generator, order: Optional[Sequence[int]] = None,
           counts: Optional[np.ndarray] = None, caution: float = 0.0,
           min_visits: int = 0) -> int:
    """ε-greedy: a uniform action with probability ε, else a best one. Ties go to a random
    one (the seed's way) or, with ``order`` (a rank per action, ``tie="prior"``), to the
    lowest rank.

    With ``caution`` > 0 and the state's visit ``counts`` per action, an action is judged
    by its value less ``caution / √visits`` (a lower confidence bound; never-tried actions
    come last), so a value seen a few times cannot outbid one seen hundreds of times.
    With ``order``, ``counts`` and ``min_visits`` > 0 only the prior's first action and the
    actions tried at least ``min_visits`` times in this state are candidates.
    """
    if epsilon > 0 and rng.random() < epsilon:
        return actions[int(rng.random() * len(actions))]
    if len(actions) == 1:
        return actions[0]
    if min_visits > 0 and counts is not None and order is not None:
        first = min(actions, key=order.__getitem__)
        actions = [a for a in actions if a == first or counts[a] >= min_visits]
        if len(actions) == 1:
            return actions[0]
    vals = q_row[actions].tolist()
    if caution > 0 and counts is not None:
        ns = counts[actions].tolist()
        vals = [v - caution / n ** 0.5 if n else -math.inf for v, n in zip(vals, ns)]
    best = max(vals)
    top = [a for a, v in zip(actions, vals) if v == best]
    if len(top) == 1:
        return top[0]
    if order is not None:
        return min(top, key=order.__getitem__)
    return top[int(rng.random() * len(top))]


def bad_reward(table: int, action: int, n_actions: int) -> float:
    """The seed's reward of one decision: −1, or −1 − 0.1 n for its "bad" actions."""
    bad = LEAD_BAD if table == LEAD else FOLLOW_BAD
    return STEP_REWARD - 0.1 * n_actions if action in bad else STEP_REWARD


def q_update(q: np.ndarray, state: int, action: int, reward: float, target_max: Optional[float],
             alpha: float = ALPHA, gamma: float = GAMMA, rule: str = "standard") -> None:
    """One update of ``q[state, action]``. ``target_max`` is max Q′ over the next decision's
    actions, or None at the end of the game (then Q += α(r − Q) under both rules).

    standard: Q += α(r + γ max Q′ − Q);  seed: Q += α(r + γ(max Q′ − Q)).
    """
    old = float(q[state, action])
    if target_max is None:
        new = old + alpha * (reward - old)
    elif rule == "standard":
        new = old + alpha * (reward + gamma * target_max - old)
    elif rule == "seed":
        new = old + alpha * (reward + gamma * (target_max - old))
    else:
        raise ValueError(f"update rule {rule!r}: with a next state use 'standard' or 'seed'")
    q[state, action] = new


class Learner:
    """One seat's learning state: the pending (table, state, action, reward) of its last
    decision, updated when it decides again or when the game ends. ``rewards`` picks the
    seed's shaped rewards or the outcome alone (`REWARDS`)."""

    __slots__ = ("tables", "alpha", "gamma", "epsilon", "rule", "rng", "pending", "prior",
                 "shaped", "episode", "caution", "average", "min_visits")

    def __init__(self, tables: QTables, rng: np.random.Generator, alpha: float = ALPHA,
                 gamma: float = GAMMA, epsilon: float = EPSILON, rule: str = "standard",
                 tie: str = "random", rewards: str = "seed", caution: float = 0.0,
                 average: bool = False, min_visits: int = 0) -> None:
        if rewards not in REWARDS:
            raise ValueError(f"rewards={rewards!r}: use 'seed' or 'outcome'")
        if rule not in RULES:
            raise ValueError(f"update rule {rule!r}: use one of {', '.join(RULES)}")
        if tie not in TIES:
            raise ValueError(f"tie={tie!r}: use 'random' or 'prior'")
        self.tables, self.rng = tables, rng
        self.alpha, self.gamma, self.epsilon, self.rule = alpha, gamma, epsilon, rule
        self.prior = tie == "prior"
        self.caution = float(caution)
        self.average = bool(average)
        self.min_visits = int(min_visits)
        self.shaped = rewards == "seed"
        self.episode: list[tuple[int, int, int, float]] = []
        self.pending: Optional[tuple[int, int, int, float]] = None

    def act(self, d: Decision) -> int:
        t = self.tables
        q = t.table(d.table)
        row = q[d.state]
        if self.pending is not None:
            if self.rule == "mc":
                self.episode.append(self.pending)
            else:
                pt, ps, pa, pr = self.pending
                q_update(t.table(pt), ps, pa, pr, float(row[d.actions].max()),
                         self._alpha(pt, ps, pa), self.gamma, self.rule)
        a = choose(row, d.actions, self.epsilon, self.rng, d.order if self.prior else None,
                   t.visits(d.table)[d.state], self.caution, self.min_visits)
        t.visits(d.table)[d.state, a] += 1
        r = bad_reward(d.table, a, len(d.actions)) if self.shaped else 0.0
        self.pending = (d.table, d.state, a, r)
        return a

    def _alpha(self, table: int, state: int, action: int) -> float:
        """α, or with ``average`` max(α, 1/visits): a running mean until 1/visits < α."""
        if not self.average:
            return self.alpha
        return max(self.alpha, 1.0 / max(1, int(self.tables.visits(table)[state, action])))

    def finish(self, won: bool) -> None:
        """The end of the game: the last decision (every decision, for ``rule="mc"``)
        moves toward the final reward (for "mc" the discounted return from it)."""
        if self.pending is None:
            return
        final = WIN_REWARD if won else -WIN_REWARD
        if self.rule == "mc":
            ret = final
            for pt, ps, pa, pr in reversed(self.episode):
                ret = pr + self.gamma * ret
                q_update(self.tables.table(pt), ps, pa, ret, None, self._alpha(pt, ps, pa))
            self.episode = []
        pt, ps, pa, _ = self.pending
        q_update(self.tables.table(pt), ps, pa, final, None, self._alpha(pt, ps, pa), self.gamma,
                 "standard" if self.rule == "mc" else self.rule)
        self.pending = None


# -- agents ---------------------------------------------------------------------------
@register_agent("qlearning")
class QLearningAgent(SmallestAgent):
    """Plays the best action of a trained Q-table (ε-greedy if ``epsilon`` > 0).

    ``tables``: a `QTables`, or None to load ``path`` (default `DEFAULT_TABLE`). ``tie``
    and ``role_bug`` default to the settings the table was trained with. Bidding is
    `SmallestAgent`'s: it is a play agent (the seed's protocol bids with the seed SVM).
    """

    name = "qlearning"

    def __init__(self, tables: Optional[QTables] = None, path: Union[str, Path, None] = None,
                 epsilon: float = 0.0, seed: SeedLike = None, tie: Optional[str] = None,
                 role_bug: Optional[bool] = None, caution: Optional[float] = None,
                 min_visits: Optional[int] = None) -> None:
        self.tables = tables if tables is not None else load_tables(path)
        trained = self.tables.meta.get("config", {})
        self.epsilon = float(epsilon)
        self.rng = as_rng(seed)
        self.tie = tie if tie is not None else trained.get("tie", "random")
        if self.tie not in TIES:
            raise ValueError(f"tie={self.tie!r}: use 'random' or 'prior'")
        self.role_bug = bool(role_bug if role_bug is not None else trained.get("role_bug", False))
        self.caution = float(caution if caution is not None else trained.get("caution", 0.0))
        self.min_visits = int(min_visits if min_visits is not None
                              else trained.get("min_visits", 0))

    def play(self, obs: Observation) -> Move:
        d = decide_obs(obs, self.role_bug)
        a = choose(self.tables.table(d.table)[d.state], d.actions, self.epsilon, self.rng,
                   d.order if self.tie == "prior" else None,
                   self.tables.visits(d.table)[d.state], self.caution, self.min_visits)
        return d.move(a)


@register_agent("split_random")
class SplitRandomAgent(SmallestAgent):
    """The seed's random player: uniform among the Q-learning agent's offered actions (so
    among the greedy split's candidate moves), each resolved like `QLearningAgent`'s."""

    name = "split_random"

    def __init__(self, seed: SeedLike = None) -> None:
        self.rng = as_rng(seed)

    def play(self, obs: Observation) -> Move:
        d = decide_obs(obs)
        return d.move(d.actions[int(self.rng.random() * len(d.actions))])


__all__ = ["QLearningAgent", "SplitRandomAgent", "QTables", "Learner", "Decision", "decide",
           "decide_obs", "lead_split", "lead_features", "lead_actions", "lead_index",
           "resolve_lead", "follow_split", "follow_features", "follow_index", "resolve_follow",
           "hand_to_state", "segments", "segment_best", "move_delta", "choose", "q_update",
           "bad_reward", "load_tables", "LEAD", "FOLLOW", "ALPHA", "GAMMA", "EPSILON",
           "DEFAULT_TABLE", "TRAIN_COMMAND", "N_LEAD_STATES", "N_FOLLOW_STATES",
           "N_LEAD_ACTIONS", "N_FOLLOW_ACTIONS", "LEAD_NAMES", "FOLLOW_NAMES"]
