"""`WeightsAgent`: penkzhou/DouDiZhu's weight-based rule AI, playing knowing its role.

Every move is scored by hand power (`ddzlab.analysis.power`): the *gain* of a play is
``power(hand - play) - power(hand)``, positive for the plays of the hand's best split
(taking a weak play out of the hand raises its power) and low for plays that break good
combinations or spend bombs. Leading, it plays the highest gain (the weakest play of the
best split: penkzhou/DouDiZhu's hint order). Following, it plays the best reply unless its gain,
less a cost for spending 2s and jokers early, is below a threshold.

On top of that base come named rules, tried in a fixed order; the first that applies picks
the move, and `WeightsAgent.explain` says which one and lists the candidates' values:

``finish``          a play that empties the hand is played at once.
``spare_partner``   a farmer never beats its partner who has ``partner_out`` cards or fewer
                    left, nor after the landlord passed; otherwise only with a clean play
                    (gain ≥ ``partner_gain``, rank ≤ ``partner_max_rank``).
``gatekeeper``      the upstream farmer (the landlord plays next) answers its partner's small
                    solo or pair with a gate card (rank in ``gate_ranks``), so the landlord
                    cannot slip a small card out (seed: 上家守门, 防止地主走小牌).
``keep_lead``       leading, when every play of the best split but one is unbeatable by the
                    unseen cards, the unbeatable ones go first and the last play last.
``one_card_guard``  an enemy has one card left: lead anything but a solo, or the solo it
                    cannot beat (else the highest); following a solo, beat with the highest.
``split_vs_two``    an enemy has two cards left: lead no pair (split one into solos);
                    following a pair, beat with the highest.
``feed_partner``    a farmer whose partner plays next and has one (two) cards left leads its
                    smallest solo (pair).
``urgent_block``    the enemy that played has ``urgent_cards`` or fewer left: beat it with
                    the best non-bomb reply whatever it costs.
``bomb``            a bomb (or the rocket) is played when the enemy that played has
                    ``bomb_threat`` cards or fewer, or when what remains after it splits into
                    at most ``bomb_rest_plays`` plays besides bombs (seed: 我方小牌比炸弹少).
``lead_power``      (base) lead the play of highest gain.
``follow_power``    (base) follow with the best reply if its value ≥ ``follow_threshold``,
                    else pass.

All tunable numbers live in `RuleWeights`; ``off`` switches named rules off (the ablation),
e.g. ``make_agent("weights", off="gatekeeper,bomb")``. Bidding: the hand is worth bid ``n``
when its power reaches the ``n``-th of `RuleWeights.bid_thresholds` (-1200, -800, -400:
about the best 40%, 13% and 5% of random 17-card hands); it bids the highest legal bid it
is worth, else passes.

>>> from ddzlab.game import Game
>>> from ddzlab.deals import generate_deals
>>> ex = WeightsAgent().explain(Game(generate_deals(1, seed=0)[0], landlord=0).observation(0))
>>> ex.rule, str(ex.move)
('lead_power', '45678')
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Iterable, Optional, Union

from ..analysis.power import SEED_POWER, PowerConstants, PowerSolver, move_power
from ..cards import RANK_CHARS, bits_size
from ..errors import DdzError
from ..game import Observation
from ..moves import PASS, Move, detect, generator
from ..kernels import WEIGHTS_RULES
from ..rules import Kind, Rules
from .base import register_agent

R2 = RANK_CHARS.index("2")

#: the rules `off` may name, in the order they are tried (declared with the compiled twin's
#: numbers, `ddzlab.kernels.WEIGHTS_RULES`)
RULES = WEIGHTS_RULES.names
#: the role-aware rules (the ablation of notebook 06 switches each off alone)
ROLE_RULES = ("spare_partner", "gatekeeper", "keep_lead", "one_card_guard", "split_vs_two",
              "feed_partner", "urgent_block", "bomb")


class WeightsError(DdzError):
    """Bad options for `WeightsAgent`: an unknown rule name or weight."""


@dataclass(frozen=True)
class RuleWeights:
    """Every number the rules use (ranks are 0 = '3' … 12 = '2', 13 = B, 14 = R)."""
    follow_threshold: float = -40.0   # follow when gain - control cost ≥ this, else pass
    high_cost: float = 60.0           # cost per 2 / joker spent following while it is early
    early_cards: int = 8              # "early": every enemy holds more cards than this
    partner_out: int = 2              # never beat a partner with this many cards or fewer
    partner_gain: float = 150.0       # else beat the partner only with gain ≥ this ...
    partner_max_rank: int = 9         # ... and a main rank ≤ this ('Q')
    gate_ranks: tuple[int, int] = (9, 11)   # gate cards: 'Q' to 'A'
    gate_below: int = 9               # the partner's card is "small" below this rank
    urgent_cards: int = 4             # block an enemy with this many cards or fewer
    bomb_threat: int = 4              # bomb an enemy with this many cards or fewer
    bomb_rest_plays: int = 1          # bomb when the rest is this many plays or fewer
    bid_thresholds: tuple[float, float, float] = (-1200.0, -800.0, -400.0)  # power for 1, 2, 3

    def to_json(self) -> str:
        """The weights as a weights file (format tag and version first)."""
        return json.dumps({"format": WEIGHTS_FORMAT, "version": WEIGHTS_VERSION, **asdict(self)},
                          indent=1)

    @classmethod
    def from_dict(cls, data: dict) -> "RuleWeights":
        """From `to_json`'s dict; keys starting with ``_`` (notes such as ``_meta``) are
        skipped. Every value is checked (`check_weight`): a wrong type, a NaN or a number
        outside its range raises `WeightsError`."""
        if not isinstance(data, dict):
            raise WeightsError(f"rule weights are a JSON object, not a {type(data).__name__}")
        if "format" in data and data["format"] != WEIGHTS_FORMAT:
            raise WeightsError(f"format tag {data['format']!r}, expected {WEIGHTS_FORMAT!r}")
        if "version" in data and data["version"] != WEIGHTS_VERSION:
            raise WeightsError(f"rule weights version {data['version']!r}, this ddzlab reads "
                               f"version {WEIGHTS_VERSION}")
        data = {k: v for k, v in data.items()
                if not str(k).startswith("_") and k not in ("format", "version")}
        names = {f.name for f in fields(cls)}
        bad = sorted(set(data) - names)
        if bad:
            raise WeightsError(f"unknown rule weights {bad}; known: {sorted(names)}")
        # each value checked against its own field's type by `check_weight` (a type per name,
        # which one dict's value type cannot state)
        checked: dict[str, Any] = {k: check_weight(k, v) for k, v in data.items()}
        return cls(**checked)


#: the weights file's format tag and version (a file without them is refused)
WEIGHTS_FORMAT, WEIGHTS_VERSION = "ddzlab.weights", 1
#: the largest size a score weight or threshold may have (hand powers are in the thousands)
MAX_WEIGHT = 1e6
#: integer weights and their ranges: card counts and play counts 0-20, ranks 0-14
_INT_RANGE = {"early_cards": (0, 20), "partner_out": (0, 20), "partner_max_rank": (0, 14),
              "gate_below": (0, 14), "urgent_cards": (0, 20), "bomb_threat": (0, 20),
              "bomb_rest_plays": (0, 20)}


def _number(name: str, v: object, integer: bool, lo: float, hi: float) -> float:
    if isinstance(v, bool) or not isinstance(v, int if integer else (int, float)):
        raise WeightsError(f"weight {name} = {v!r}: expected {'an integer' if integer else 'a number'}")
    if not lo <= v <= hi:           # NaN fails this too
        raise WeightsError(f"weight {name} = {v!r}: outside [{lo:g}, {hi:g}]")
    return v if integer else float(v)


def check_weight(name: str, v: object) -> Union[float, tuple[float, ...]]:
    """``v`` as the value of weight ``name`` (lists become tuples), or `WeightsError`."""
    if name in _INT_RANGE:
        return _number(name, v, True, *_INT_RANGE[name])
    if name in ("gate_ranks", "bid_thresholds"):
        n = 2 if name == "gate_ranks" else 3
        if not isinstance(v, (list, tuple)) or len(v) != n:
            raise WeightsError(f"weight {name} = {v!r}: expected {n} numbers")
        vals = tuple(_number(name, x, name == "gate_ranks",
                             *((0, 14) if name == "gate_ranks" else (-MAX_WEIGHT, MAX_WEIGHT)))
                     for x in v)
        if any(b < a for a, b in zip(vals, vals[1:])):
            raise WeightsError(f"weight {name} = {v!r}: must not decrease")
        return vals
    return _number(name, v, False, -MAX_WEIGHT, MAX_WEIGHT)


#: the weights shipped with ddzlab (the tuned ones, when `TUNED_FILE` exists)
TUNED_FILE = Path(__file__).with_name("weights_tuned.json")


_LOADED: dict[tuple[Path, float], RuleWeights] = {}


def _no_constant(name: str) -> None:
    raise WeightsError(f"the file holds {name}, not a finite number")


def load_weights(path: Union[str, Path, None] = None) -> RuleWeights:
    """Rule weights from a JSON file (default: the tuned file shipped with ddzlab, or the
    dataclass defaults when there is none). Files are read once (until they change).

    A file needs its format version and sane values (`RuleWeights.from_dict`); anything
    else raises `WeightsError` naming the file and the value."""
    path = TUNED_FILE if path is None else Path(path)
    if not path.exists():
        if path == TUNED_FILE:
            return RuleWeights()
        raise WeightsError(f"no rule weights file {path}")
    key = (path.resolve(), path.stat().st_mtime)
    if key not in _LOADED:
        try:
            data = json.loads(path.read_bytes().decode("utf-8"), parse_constant=_no_constant)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, WeightsError) as e:
            raise WeightsError(f"{path}: not a JSON rule weights file ({e})") from None
        if isinstance(data, dict) and "version" not in data:
            raise WeightsError(f"{path}: no format version; a rule weights file starts with "
                               f'"format": "{WEIGHTS_FORMAT}", "version": {WEIGHTS_VERSION} '
                               "(RuleWeights.to_json and ddzlab train weights write them)")
        try:
            _LOADED[key] = RuleWeights.from_dict(data)
        except WeightsError as e:
            raise WeightsError(f"{path}: {e}") from None
    return _LOADED[key]


@dataclass
class Explanation:
    """Why a move was chosen: the rule that fired and the value of each candidate the agent
    evaluated (gain of hand power, less the control cost when following; pass is 0). The
    agent evaluates plays lazily (see `_Values`); ``explain(obs, full=True)`` lists all."""
    move: Move
    rule: str
    values: list[tuple[Move, float]] = field(default_factory=list)

    def __str__(self) -> str:
        top = ", ".join(f"{m}:{v:.0f}" for m, v in sorted(self.values, key=lambda x: -x[1])[:6])
        return f"{self.move} by {self.rule} ({top})"


def explanation_eval(ex: Explanation, top: int = 3) -> dict:
    """``last_eval`` of a `WeightsAgent` play (`ddzlab.agents.base.Evaluating`): the rule that
    chose the move, its value (gain of hand power, when it was evaluated) and the ``top``
    best-valued candidates."""
    values = dict(ex.values)
    out: dict = {"rule": ex.rule}
    if ex.move in values:
        out["value"] = round(float(values[ex.move]), 1)
    best = sorted(ex.values, key=lambda mv: -mv[1])[:top]
    if best:
        out["top"] = {str(m): round(float(v), 1) for m, v in best}
    return out


def parse_off(off: Union[str, Iterable[str], None]) -> frozenset[str]:
    """Rule names to switch off, from ``"a,b"`` or an iterable; unknown names raise."""
    if off is None or off == "":
        return frozenset()
    names = off.replace("+", ",").split(",") if isinstance(off, str) else list(off)
    names = [n.strip() for n in names if n.strip()]
    bad = [n for n in names if n not in RULES]
    if bad:
        raise WeightsError(f"unknown rule(s) {bad}; rules: {', '.join(RULES)}")
    return frozenset(names)


@register_agent("weights")
class WeightsAgent:
    """The role-aware rule AI of penkzhou/DouDiZhu: hand power plus named rules, deterministic (module docstring)."""

    name = "weights"
    last_eval: Optional[dict] = None

    def __init__(self, weights: Union[RuleWeights, str, Path, None] = None,
                 off: Union[str, Iterable[str], None] = None,
                 power: PowerConstants = SEED_POWER) -> None:
        self.w = weights if isinstance(weights, RuleWeights) else load_weights(weights)
        self.off = parse_off(off)
        self.power_constants = power
        self._solver: Optional[PowerSolver] = None
        self._solver_rules: Optional[Rules] = None

    # -- power ------------------------------------------------------------------------
    def _solver_for(self, obs: Observation) -> PowerSolver:
        """The power search of ``obs``'s hand: the last one while the hand is part of its hand."""
        hand = obs.hand.bits
        s = self._solver
        if s is None or (s.bits | hand) != s.bits or self._solver_rules is not obs.rules:
            s = self._solver = self.solver(hand, obs.rules)
            self._solver_rules = obs.rules
        return s

    def _power(self, obs: Observation, bits: int) -> float:
        s = self._solver_for(obs)
        return s.power(bits) if bits else 0.0

    def solver(self, hand: int, rules: Rules) -> PowerSolver:
        """The hand power solver of a packed hand: the plays of `PowerSolver.split` in the
        generator's order (the checks of the compiled twin give the core's order instead,
        which decides ties under the wildcard rules: docs/core.md)."""
        return PowerSolver(hand, rules, self.power_constants)

    def _split(self, obs: Observation, bits: int) -> list[Move]:
        s = self._solver_for(obs)
        return s.split(bits) if bits else []

    # -- bidding ----------------------------------------------------------------------
    def bid_value(self, obs: Observation) -> int:
        """The bid the hand is worth (0..3): the number of `bid_thresholds` its power reaches."""
        p = self._power(obs, obs.hand.bits)
        return sum(p >= t for t in self.w.bid_thresholds)

    def bid(self, obs: Observation) -> int:
        want = self.bid_value(obs)
        bids = [b for b in obs.legal_bids if 0 < b <= want]
        self.last_eval = {"power": round(self._power(obs, obs.hand.bits), 1), "worth": int(want)}
        return max(bids) if bids else 0

    # -- play -------------------------------------------------------------------------
    def play(self, obs: Observation) -> Move:
        ex = self.explain(obs)
        self.last_eval = explanation_eval(ex)
        return ex.move

    def explain(self, obs: Observation, full: bool = False) -> Explanation:
        """The move this agent plays in ``obs``, the rule that chose it and the values of
        the candidates it evaluated (``full``: of every legal move; the move is the same)."""
        if not obs.legal_moves:
            raise WeightsError(f"seat {obs.seat} has no legal move to choose (not its turn?)")
        hand = obs.hand.bits
        base = self._power(obs, hand)
        n, lord, me = obs.players, obs.landlord, obs.seat
        if lord is None or me == lord:
            enemies, partner = [s for s in range(n) if s != me], None
        else:
            enemies = [lord]
            partner = next(s for s in range(n) if s not in (me, lord))
        following = obs.last_move is not None
        early = following and min(obs.cards_left[s] for s in enemies) > self.w.early_cards
        cost = self.w.high_cost if early else 0.0

        def value(m: Move) -> float:
            if m.is_pass:
                return 0.0
            v = self._power(obs, hand - m.cards) - base
            if cost:
                v -= cost * sum((m.cards >> (4 * r)) & 15 for r in range(R2, 15))
            return v

        known = self._solver_for(obs).play_power

        def bound(m: Move) -> float:
            if m.is_pass:
                return 0.0
            pw = known.get(m)
            return -(move_power(m, self.power_constants) if pw is None else pw)

        values = _Values(list(obs.legal_moves), value, bound)
        if full:
            for m in values.moves:
                values.value(m)
        c = _Ctx(obs, values, enemies, partner, base)
        for rule in RULES:
            if rule in self.off or (following and rule in ("keep_lead", "feed_partner")):
                continue
            move = getattr(self, "_" + rule)(c)
            if move is not None:
                return Explanation(move, rule, values.items())
        if following:
            return Explanation(self._follow_power(c), "follow_power", values.items())
        return Explanation(values.best_lead()[0], "lead_power", values.items())

    # -- the rules (each returns a move, or None when it does not apply) --------------
    def _finish(self, c: "_Ctx") -> Optional[Move]:
        hand = c.obs.hand.bits
        done = [m for m in c.values.moves if m.cards == hand and not m.is_pass]
        return done[0] if done else None

    def _spare_partner(self, c: "_Ctx") -> Optional[Move]:
        obs = c.obs
        if c.partner is None or obs.last_seat != c.partner or obs.last_move is None:
            return None
        w = self.w
        if obs.cards_left[c.partner] <= w.partner_out:
            return PASS
        lord_passed = bool(obs.history) and obs.history[-1][0] == obs.landlord \
            and obs.history[-1][1].is_pass
        if lord_passed:
            return PASS
        if "gatekeeper" not in self.off and self._gate(c) is not None:
            return None                                     # the gatekeeper answers
        best = c.values.best(lambda m: _plain(m) and m.rank <= w.partner_max_rank)
        return best[0] if best and best[1] >= w.partner_gain else PASS

    def _gate(self, c: "_Ctx") -> Optional[Move]:
        obs = c.obs
        w = self.w
        to_beat = obs.last_move
        if (c.partner is None or obs.role != "up" or obs.last_seat != c.partner
                or to_beat is None or to_beat.kind not in (Kind.SOLO, Kind.PAIR)
                or to_beat.rank >= w.gate_below
                or obs.cards_left[c.partner] <= w.partner_out):
            return None
        lo, hi = w.gate_ranks
        best = c.values.best(lambda m: _plain(m) and lo <= m.rank <= hi)
        return best[0] if best else None

    def _gatekeeper(self, c: "_Ctx") -> Optional[Move]:
        return self._gate(c)

    def _keep_lead(self, c: "_Ctx") -> Optional[Move]:
        obs = c.obs
        split = self._split(obs, obs.hand.bits)
        free = [m for m in split if not m.is_bomb and not self._beatable(c, m)]
        bombs = [m for m in split if m.is_bomb]
        if not free or len(split) - len(free) - len(bombs) > 1:
            return None
        return max(free, key=lambda m: (m.size, m.rank))

    def _one_card_guard(self, c: "_Ctx") -> Optional[Move]:
        obs = c.obs
        if min(obs.cards_left[s] for s in c.enemies) != 1:
            return None
        to_beat = obs.last_move
        solos = [m for m in c.values.moves if m.kind == Kind.SOLO]
        if to_beat is None:
            other = c.values.best(lambda m: m.kind != Kind.SOLO and not m.is_bomb)
            if other:
                return other[0]
            safe = [m for m in solos if not self._beatable(c, m)]
            return min(safe, key=lambda m: m.rank) if safe else max(solos, key=lambda m: m.rank)
        if to_beat.kind == Kind.SOLO and obs.last_seat in c.enemies and solos:
            return max(solos, key=lambda m: m.rank)
        return None

    def _split_vs_two(self, c: "_Ctx") -> Optional[Move]:
        obs = c.obs
        if min(obs.cards_left[s] for s in c.enemies) != 2:
            return None
        to_beat = obs.last_move
        if to_beat is None:
            if c.values.best_lead()[0].kind != Kind.PAIR:
                return None
            other = c.values.best(lambda m: m.kind != Kind.PAIR and not m.is_bomb)
            return other[0] if other else None
        pairs = [m for m in c.values.moves if m.kind == Kind.PAIR]
        if to_beat.kind == Kind.PAIR and obs.last_seat in c.enemies and pairs:
            return max(pairs, key=lambda m: m.rank)
        return None

    def _feed_partner(self, c: "_Ctx") -> Optional[Move]:
        obs = c.obs
        if c.partner is None or c.partner != (obs.seat + 1) % obs.players:
            return None
        kind = {1: Kind.SOLO, 2: Kind.PAIR}.get(obs.cards_left[c.partner])
        cand = [m for m in c.values.moves if m.kind == kind]
        return min(cand, key=lambda m: m.rank) if cand else None

    def _urgent_block(self, c: "_Ctx") -> Optional[Move]:
        obs = c.obs
        if obs.last_move is None or obs.last_seat not in c.enemies:
            return None
        if obs.cards_left[obs.last_seat] > self.w.urgent_cards:
            return None
        best = c.values.best(_plain)
        return best[0] if best else None

    def _bomb(self, c: "_Ctx") -> Optional[Move]:
        obs = c.obs
        bombs = [m for m in c.values.moves if m.is_bomb]
        if not bombs:
            return None
        if obs.last_move is not None:
            if obs.last_seat not in c.enemies:
                return None
            if obs.cards_left[obs.last_seat] <= self.w.bomb_threat:
                return min(bombs, key=lambda m: (m.kind == Kind.ROCKET, m.rank))
        hand = obs.hand.bits
        for m in sorted(bombs, key=lambda m: -c.values.value(m)):
            rest = self._split(obs, hand - m.cards)
            if sum(not x.is_bomb for x in rest) <= self.w.bomb_rest_plays:
                return m
        return None

    def _follow_power(self, c: "_Ctx") -> Move:
        best = c.values.best(_plain)
        return best[0] if best and best[1] >= self.w.follow_threshold else PASS

    # -- helpers ----------------------------------------------------------------------
    def _beatable(self, c: "_Ctx", move: Move) -> bool:
        """Whether the unseen cards hold a non-bomb reply to ``move`` small enough for an
        enemy's hand (bombs are ignored: they can beat anything). A play with kickers is
        judged by its main part (a trio, a plane, a quad), with the kickers assumed found
        among the unseen cards: listing every kicker choice of 30-odd cards is slow."""
        obs = c.obs
        most = max(obs.cards_left[s] for s in c.enemies)
        if move.size > most:
            return False
        unseen = obs.unseen.bits
        probe = move
        if move.kickers:
            main = detect(move.main, obs.rules)
            if main is None or main.is_bomb:        # four with kickers: only a bomb beats it
                return False
            if bits_size(unseen) < move.size:
                return False
            probe = main
        for m in generator(obs.rules).following(unseen, probe):
            if not m.is_pass and not m.is_bomb and m.size <= most:
                return True
        return False


class _Values:
    """The candidates' values, computed on demand. A play's value is at most its bound,
    ``-move_power(play)`` (a play and the best split of the rest are a split of the hand,
    so ``power(hand) ≥ power(play) + power(rest)``; the control cost only lowers it), so
    `best` evaluates plays in the order of that bound and stops once none left can win."""

    def __init__(self, moves: list[Move], value, bound) -> None:
        self.moves, self._value, self._bound = moves, value, bound
        self.known: dict[Move, float] = {}

    def value(self, m: Move) -> float:
        v = self.known.get(m)
        if v is None:
            v = self.known[m] = self._value(m)
        return v

    def best(self, pred) -> Optional[tuple[Move, float]]:
        """The play with ``pred`` of highest value (ties: lower rank, fewer cards), or None."""
        cand = sorted(((self._bound(m), m) for m in self.moves if pred(m)), key=lambda x: -x[0])
        top: Optional[tuple] = None
        for b, m in cand:
            if top is not None and b < top[0]:
                break
            key = (self.value(m), -m.rank, -m.size)
            if top is None or key > top:
                top, arg = key, m
        return None if top is None else (arg, top[0])

    def best_lead(self) -> tuple[Move, float]:
        """`best` of every play, when leading (a lead always has one: the hand is not empty)."""
        got = self.best(_any)
        if got is None:
            raise WeightsError("no play to lead with: the hand is empty")
        return got

    def items(self) -> list[tuple[Move, float]]:
        return list(self.known.items())


def _any(m: Move) -> bool:
    return not m.is_pass


def _plain(m: Move) -> bool:
    """Neither pass nor a bomb."""
    return not m.is_pass and not m.is_bomb


@dataclass
class _Ctx:
    obs: Observation
    values: _Values
    enemies: list[int]
    partner: Optional[int]
    base: float


def describe(weights: RuleWeights) -> str:
    """The weights as one line (for logs and notebooks)."""
    return ", ".join(f"{k}={v}" for k, v in asdict(weights).items())


__all__ = ["WeightsAgent", "RuleWeights", "Explanation", "RULES", "ROLE_RULES", "WeightsError",
           "load_weights", "check_weight", "WEIGHTS_FORMAT", "WEIGHTS_VERSION", "parse_off", "TUNED_FILE", "describe"]
