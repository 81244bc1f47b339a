"""du-guai's state encoders and abstract actions on ddzlab's greedy split (see the package
docstring): lead and follow features, the actions offered, how each resolves to a legal move,
and the tie-break prior over actions."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np

from ...analysis.greedy import q_cards, q_value
from ...cards import R2, RB, RR, bits_size
from ...game import Observation
from ...moves import PASS, Move, detect, generator
from ...rules import STANDARD, Kind

# -- sizes ----------------------------------------------------------------------------
N_LEAD_FEATURES, N_FOLLOW_FEATURES = 12, 6
N_LEAD_ACTIONS, N_FOLLOW_ACTIONS = 17, 9
#: ranges of the lead features after du-guai's packing of (min, max) pairs with min ≤ max
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

LEAD, FOLLOW = 0, 1
_PLAIN = (Kind.SOLO, Kind.PAIR, Kind.TRIO, Kind.BOMB, Kind.SOLO_CHAIN, Kind.PAIR_CHAIN,
          Kind.TRIO_CHAIN)
_LOW_MASK = (1 << (4 * R2)) - 1                 # nibbles of 3..A
_GEN = generator(STANDARD)


# -- small helpers --------------------------------------------------------------------
def hand_to_state(n: int) -> int:
    """du-guai's bucket of a hand size: 1..5 → 0..4, 6–9 → 5, 10–14 → 6, ≥ 15 → 7."""
    if n <= 5:
        return max(n - 1, 0)
    return 5 if n <= 9 else 6 if n <= 14 else 7


def _f1(v: float) -> int:
    return 0 if v <= 4 else 1 if v <= 8 else 2 if v <= 12 else 3


def _f2(v: float) -> int:
    return 0 if v <= 5 else 1 if v <= 10 else 2


def _value(rank: int) -> int:
    """du-guai's card value: 3 → 1 ... 2 → 13, B → 14, R → 15."""
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
                total += max(0, best - q_cards(seg, part))
    total += (cards >> (4 * R2)) & 15
    total += 2 * (((cards >> (4 * RB)) & 15) + ((cards >> (4 * RR)) & 15))
    return total


_SINGLES: dict[int, Move] = {}


def _plain_move(cards: int) -> Move:
    m = _SINGLES.get(cards)
    if m is None:
        m = _SINGLES[cards] = _available(detect(cards), f"the cards {cards:#x} as one play")
    return m


def _available(m: Optional[Move], what: str) -> Move:
    """``m``, or `ValueError` when there is no such play (an action the hand's mask rules out)."""
    if m is None:
        raise ValueError(f"{what}: this hand has none")
    return m


def _pick(lst: Sequence[Move], k: int) -> Move:
    """du-guai's choice in a sorted list: 0 smallest, 1 middle, 2 largest."""
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
    """The lead actions offered: du-guai's forced solos for a farmer, then the split's."""
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
    """du-guai's 12 lead features (solo min/max, pair min/max, trios, chain-of-5 height,
    other chains, bombs, rocket, role, bucketed sizes of the previous and next hands)."""
    return split.features + (role, hand_to_state(hand_p), hand_to_state(hand_n))


def lead_index(f: Sequence[int]) -> int:
    """Row of the lead table for 12 features (du-guai's packing, 0..1,244,159)."""
    vals = (f[0] + _NMAP[f[1]], f[2] + _NMAP[f[3]]) + tuple(f[4:])
    return _mixed_radix(vals, LEAD_RADIX, f"lead features {tuple(f)}")


def _mixed_radix(vals: Sequence[int], radix: Sequence[int], what: str) -> int:
    """The mixed-radix number of ``vals`` (a table row); ValueError naming ``what`` when a
    digit is out of its range."""
    idx = 0
    for v, n in zip(vals, radix):
        if not 0 <= v < n:
            raise ValueError(f"{what} out of range")
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
        return _available(split.rocket, "lead action 12 (rocket)")
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
    """du-guai's 6 follow features: best split cost (≤ 5), own role, role of the player of
    the move to beat, bucketed sizes of the previous and next hands, its size (≤ 5)."""
    return (min(split.min_delta, 5), role, owner_role, hand_to_state(hand_p),
            hand_to_state(hand_n), min(last_size, 5))


def follow_index(f: Sequence[int]) -> int:
    """Row of the follow table for 6 features (0..20,735)."""
    return _mixed_radix(f, FOLLOW_RADIX, f"follow features {tuple(f)}")


def resolve_follow(split: FollowSplit, action: int) -> Move:
    """The concrete reply of follow ``action``."""
    if action == 0:
        return PASS
    g = split.good
    if 1 <= action <= 4:
        n = len(g)
        return g[(0, n // 2, int(n // 1.5), n - 1)[action - 1]]
    if action == 5:
        return _available(split.highest, "follow action 5 (force highest)")
    if action == 6:
        return split.bombs[0]
    if action == 7:
        return split.bombs[-1]
    if action == 8:
        return _available(split.rocket, "follow action 8 (rocket)")
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
    if last_seat is None:
        raise ValueError("a move to beat needs the seat that played it (last_seat)")
    f = follow_features(fs, role, (last_seat - landlord) % 3, hand_p, hand_n, last_move.size)
    return Decision(FOLLOW, follow_index(f), list(fs.actions), fs, legal,
                    role != 0 and f[2] != 0)


def decide_obs(obs: Observation, role_bug: bool = False) -> Decision:
    """`decide` from a seat's `Observation`."""
    if obs.players != 3 or obs.landlord is None:
        raise ValueError("the Q-learning abstraction needs a three-player game with a landlord")
    return decide(obs.hand.bits, obs.legal_moves, obs.seat, obs.landlord, obs.cards_left,
                  obs.last_move, obs.last_seat, role_bug)


# -- the tie-break prior ----------------------------------------------------------------
#: the tie-break prior (``tie="prior"``), best first. Leading: du-guai's forced solos (only
#: offered when an opponent or the partner is down to one card), then the plays that shed
#: the most cards, small before large, bombs and the rocket last. Following: the smallest
#: good reply, pass, then the costly replies; after the partner's move, pass first.
LEAD_PRIOR = (4, 0, 15, 13, 8, 5, 1, 14, 9, 6, 2, 7, 3, 16, 10, 11, 12)
FOLLOW_PRIOR = (1, 2, 3, 4, 0, 5, 6, 7, 8)
PARTNER_PRIOR = (0, 1, 2, 3, 4, 5, 6, 7, 8)
_LEAD_ORDER = tuple(LEAD_PRIOR.index(a) for a in range(N_LEAD_ACTIONS))
_FOLLOW_ORDER = tuple(FOLLOW_PRIOR.index(a) for a in range(N_FOLLOW_ACTIONS))
_PARTNER_ORDER = tuple(PARTNER_PRIOR.index(a) for a in range(N_FOLLOW_ACTIONS))
