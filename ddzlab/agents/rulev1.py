"""`RuleV1Agent` (``"rulev1"``): RLCard 1.2.0's rule agent ``DouDizhuRuleAgentV1`` as a ddzlab peer.

RLCard's agent is called as it is; this module only translates. From the seat's
`Observation` it builds the state RLCard's Dou Dizhu env would hand the agent, asks the
agent, and maps the answer back to one of ``obs.legal_moves``. Needs the ``peers`` extra
(``pip install 'ddzlab[peers]'``); RLCard is imported when the first agent is built, so
``import ddzlab`` works without it.

What the rule agent does (read from ``rlcard/models/doudizhu_rule_models.py``): leading, it
splits its hand into rocket, bombs, trios, trio chains, solo chains, pairs and solos and
plays the first group holding its lowest card; following, it plays the lowest listed reply
of the same type (RLCard's type includes the chain length); with none, a farmer passes
when the previous seat is a farmer, and otherwise it plays ``np.random.choice(actions)``
(pass included) from **numpy's global RNG**. It reads ``state['raw_obs']`` only: its
``trace``, ``current_hand``, ``actions``, ``landlord`` and ``self``.

The translation (`rlcard_state`):

* seats: RLCard's landlord is player 0 and play goes 0 → 1 → 2, so RLCard's id of a
  ddzlab seat is ``(seat - landlord) % 3`` (down farmer 1, up farmer 2).
* cards: RLCard's strings use ddzlab's rank letters (``3..9TJQKA2BR``) sorted by rank;
  ``'pass'`` is the pass. ``raw_obs`` holds ``current_hand``, ``others_hand`` (the other two
  hands together: what is not in this hand and not played), ``played_cards`` (per id),
  ``num_cards_left`` (per id), ``seen_cards`` (the kitty less every rank the landlord has
  played, RLCard's bookkeeping), ``landlord`` (0), ``self``, ``trace`` (every play and
  pass, as (id, string)) and ``actions``. The numeric ``obs`` vectors are not built: the
  rule agent never reads them.
* ``actions`` is what RLCard would list: ddzlab's legal moves that RLCard reads as the
  same move (same type, chain length and rank), in RLCard's order. Following, that order
  is its ``get_gt_cards``: pass, higher moves of the target's type in the order of RLCard's
  type table, then the rocket and the bombs (bombs first when the target is a bomb).
  Leading, RLCard lists a Python set, whose order depends on the string hash seed; the
  agent does not read the list when leading, and it is given in RLCard's action-id order.

Moves RLCard cannot represent. RLCard forbids B+R as kickers (four + two solos, planes
with solos), and it does not read ``444555666`` + ``333`` as a plane with solos (its
action table holds those cards only as a chain of four trios, and kickers never include
a trio next to the chain). So:

* an opponent's such move is shown in ``trace`` as a **stand-in**: RLCard's first move of
  the same type, chain length and rank in its own table (``TYPE_CARD``), e.g. ``4444BR``
  is shown as ``334444`` and ``333444BR`` as ``3334445B``. The rule agent reads only the
  type and rank of the move to beat, and RLCard lists the same replies to the stand-in as
  ddzlab to the real move, so it answers as if the real move could be shown. Card counts
  (``played_cards``, ``others_hand``, ``num_cards_left``) are the real cards.
* such moves in the agent's own legal list are left out of ``actions`` (RLCard would not
  list them), so the agent never plays them.

The other way round, RLCard allows planes of four or five trios whose solo kickers hold
three of a kind (``777888999TTT`` + ``3334``); ddzlab's rules (DouZero's) do not, so with
such a hand ``actions`` lacks them: the only case where it is shorter than RLCard's list.

Randomness: the random fallback calls ``np.random.choice``, numpy's global RNG. During a
call, RLCard's rule module sees as ``np`` a view of numpy whose ``random`` is this agent's
own ``numpy.random.RandomState`` (``random_state``, seeded from ``seed`` and built on first
use: it costs 0.3 ms and most games never need it). Same seed, same game; the global RNG is
neither read nor changed, and RLCard's module is restored after each call. Calls from
several threads take turns (a lock around the swap), so threaded runs give the same games
as sequential ones.

Bidding: the rule agent does not bid; `RuleV1Agent` bids like `SmallestAgent` (pass unless
everyone else passed). The arena plays with a fixed landlord anyway.

>>> from ddzlab.agents import make_agent, play_game
>>> from ddzlab.deals import generate_deals
>>> from ddzlab.game import Game
>>> game = Game(generate_deals(1, seed=0)[0], landlord=0)
>>> rlcard_state(game.observation(0))["raw_obs"]["current_hand"]
'3334556788899TTJJJQA'
>>> g = play_game(game, [make_agent("rulev1", seed=s) for s in range(3)])
>>> g.is_over, str(g.history[0][1])
(True, '333')
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional

import numpy as np

from ..cards import format_bits as _format_bits
from ..deals import SeedLike, as_rng
from ..game import Observation
from ..moves import Move, parse_move
from ..rules import Kind
from .base import AgentError, register_agent
from .smallest import SmallestAgent

#: RLCard's type name of each ddzlab kind (chains: the prefix, the length follows)
_TYPE_NAMES = {Kind.SOLO: "solo", Kind.PAIR: "pair", Kind.TRIO: "trio", Kind.BOMB: "bomb",
               Kind.ROCKET: "rocket", Kind.TRIO_SOLO: "trio_solo", Kind.TRIO_PAIR: "trio_pair",
               Kind.FOUR_TWO_SOLO: "four_two_solo", Kind.FOUR_TWO_PAIR: "four_two_pair"}
_CHAIN_NAMES = {Kind.SOLO_CHAIN: "solo_chain_", Kind.PAIR_CHAIN: "pair_chain_",
                Kind.TRIO_CHAIN: "trio_chain_", Kind.PLANE_SOLO: "trio_solo_chain_",
                Kind.PLANE_PAIR: "trio_pair_chain_"}

PEERS_HINT = "pip install 'ddzlab[peers]'"

#: RLCard's card string of packed cards (cached: hands and played cards recur)
format_bits = lru_cache(maxsize=1 << 16)(_format_bits)


def rlcard_type(move: Move) -> str:
    """RLCard's type name of a ddzlab move (``'solo_chain_5'``, ``'trio_solo_chain_2'``...)."""
    name = _TYPE_NAMES.get(move.kind)
    if name is not None:
        return name
    prefix = _CHAIN_NAMES.get(move.kind)
    if prefix is None:
        raise AgentError(f"RLCard has no move type for {move!r} (kind {move.kind.label})")
    return f"{prefix}{move.length}"


#: held while RLCard's module sees an agent's RandomState: calls from several threads take
#: turns, so none leaves another's view installed (the review saw one agent's RNG stay in
#: RLCard's module after a threaded run)
_SWAP = threading.Lock()


@dataclass(frozen=True)
class _MoveInfo:
    """How RLCard sees one ddzlab move."""
    text: str            # its cards as an RLCard string ('pass' for the pass)
    same: bool           # RLCard reads ``text`` as this very move (type, length, rank)
    shown: str           # what the trace shows: ``text``, or the stand-in when not ``same``
    order: int           # position in RLCard's type table (following order); -1 if not same
    action_id: int       # RLCard's action id (leading order); -1 if not same


class _Tables:
    """RLCard's agent class and action tables, loaded once per process."""

    def __init__(self) -> None:
        try:
            from rlcard.games.doudizhu.utils import ACTION_2_ID, CARD_TYPE, TYPE_CARD
            from rlcard.models import doudizhu_rule_models
        except ImportError as e:
            raise AgentError(f"the rulev1 agent needs RLCard 1.2.0 ({e}): {PEERS_HINT}") from None
        self.module = doudizhu_rule_models
        self.agent_class = doudizhu_rule_models.DouDizhuRuleAgentV1
        self.action_id = ACTION_2_ID
        #: RLCard string -> (type name, weight): its (only) reading of those cards
        self.reading = {s: (types[0][0], int(types[0][1])) for s, types in CARD_TYPE[0].items()}
        #: RLCard string -> position in the iteration `get_gt_cards` does over TYPE_CARD[type]
        self.order: dict[str, int] = {}
        #: (type, weight) -> RLCard's first string of that type and weight (the stand-in)
        self.first: dict[tuple[str, int], str] = {}
        #: type -> weight minus ddzlab's main rank (0 for plain moves, 1 for kicker moves)
        self.offset: dict[str, int] = {}
        for type_name, by_weight in TYPE_CARD.items():
            i = 0
            for weight, strings in by_weight.items():
                self.first[(type_name, int(weight))] = strings[0]
                for s in strings:
                    self.order.setdefault(s, i)
                    i += 1
            weight, strings = next(iter(by_weight.items()))
            self.offset[type_name] = int(weight) - parse_move(strings[0]).rank
        self.infos: dict[Move, _MoveInfo] = {}

    def info(self, move: Move) -> _MoveInfo:
        """How RLCard sees ``move`` (cached: ddzlab shares its move objects)."""
        got = self.infos.get(move)
        if got is None:
            got = self.infos[move] = self._info(move)
        return got

    def _info(self, move: Move) -> _MoveInfo:
        if move.kind is Kind.PASS:
            return _MoveInfo("pass", True, "pass", -1, self.action_id["pass"])
        text = format_bits(move.cards)
        type_name = rlcard_type(move)
        reading = (type_name, move.rank + self.offset[type_name])
        if self.reading.get(text) == reading:
            return _MoveInfo(text, True, text, self.order[text], self.action_id[text])
        stand_in = self.first.get(reading)
        if stand_in is None:
            raise AgentError(f"RLCard has no {type_name} of rank {move.rank_char} to show for {move!r}")
        return _MoveInfo(text, False, stand_in, -1, -1)


_TABLES: Optional[_Tables] = None


def _tables() -> _Tables:
    global _TABLES
    if _TABLES is None:
        _TABLES = _Tables()
    return _TABLES


def _check(obs: Observation) -> int:
    """The landlord's seat, or `AgentError` if ``obs`` is not of RLCard's game."""
    lord = obs.landlord
    if obs.rules.name != "standard" or obs.players != 3 or lord is None:
        raise AgentError(f"rulev1 plays RLCard's game: standard rules, three seats, a landlord "
                         f"(this game: {obs.rules.name} rules, {obs.players} seats, "
                         f"landlord {obs.landlord})")
    if len(obs.hand) > 20:
        raise AgentError(f"rulev1 plays RLCard's game, whose hands have at most 20 cards "
                         f"(this one has {len(obs.hand)})")
    return lord


def _draws(state: np.random.RandomState) -> int:
    """The position in ``state``'s Mersenne Twister buffer (the legacy state's third item): a draw moves it."""
    return int(state.get_state(legacy=False)["state"]["pos"])


def rlcard_actions(obs: Observation) -> tuple[list[str], dict[str, Move]]:
    """RLCard's ``actions`` for the seat to act, and the ddzlab move of each."""
    t = _tables()
    info = t.info
    moves: dict[str, Move] = {}
    if obs.last_move is None:
        keyed = []
        for m in obs.legal_moves:
            i = info(m)
            if i.same:
                moves[i.text] = m
                keyed.append((i.action_id, i.text))
        keyed.sort()
        return [s for _, s in keyed], moves
    target_is_bomb = obs.last_move.kind is Kind.BOMB
    grouped: list[tuple[int, int, str]] = []
    for m in obs.legal_moves:
        i = info(m)
        if not i.same or m.kind is Kind.PASS:
            continue
        moves[i.text] = m
        if m.kind is Kind.ROCKET:
            group = 1
        elif m.kind is Kind.BOMB:
            group = 0 if target_is_bomb else 2
        else:
            group = 0
        grouped.append((group, i.order, i.text))
    grouped.sort()
    moves["pass"] = obs.legal_moves[-1]
    return ["pass"] + [s for _, _, s in grouped], moves


def rlcard_trace(obs: Observation, start: int = 0) -> list[tuple[int, str]]:
    """RLCard's ``trace`` of ``obs.history[start:]`` (stand-ins for moves it cannot show)."""
    info, lord = _tables().info, obs.landlord
    if lord is None:
        raise AgentError("RLCard's trace counts seats from the landlord: this game has none yet")
    return [((s - lord) % 3, info(m).shown) for s, m in obs.history[start:]]


def rlcard_state(obs: Observation, actions: Optional[list[str]] = None,
                 trace: Optional[list[tuple[int, str]]] = None) -> dict[str, Any]:
    """The state RLCard's env gives its rule agent at ``obs`` (``raw_obs`` and
    ``raw_legal_actions``; see the module docstring). ``obs`` must be the seat to act's;
    ``actions`` and ``trace``, when given, are `rlcard_actions` and `rlcard_trace`."""
    lord = _check(obs)
    if actions is None:
        actions = rlcard_actions(obs)[0]
    ids = [(lord + k) % 3 for k in range(3)]          # RLCard id k -> ddzlab seat
    played = obs.played_bits
    lord_played = played[lord]
    kitty = format_bits(obs.kitty.bits) if obs.kitty is not None else ""
    seen = "".join(c for c in kitty if c not in format_bits(lord_played))
    raw = {
        "seen_cards": seen,
        "landlord": 0,
        "trace": rlcard_trace(obs) if trace is None else trace,
        "played_cards": [format_bits(played[s]) for s in ids],
        "self": (obs.seat - lord) % 3,
        "current_hand": format_bits(obs.hand.bits),
        "others_hand": format_bits(obs.rules.deck - obs.hand.bits - sum(played)),
        "num_cards_left": [obs.cards_left[s] for s in ids],
        "actions": actions,
    }
    return {"raw_obs": raw, "raw_legal_actions": list(actions)}


class _NumpyView:
    """What RLCard's rule module sees as ``np`` during a call: numpy, but ``np.random`` is
    one agent's RandomState."""

    def __init__(self, agent: "RuleV1Agent") -> None:
        self._agent = agent

    @property
    def random(self) -> np.random.RandomState:
        return self._agent.random_state

    def __getattr__(self, name: str) -> Any:
        return getattr(np, name)


#: the explanations ``last_eval["rule"]`` gives, by the rule of RLCard's agent that moved
RULES_TOLD = {"lead": "lead the first combination (rocket, bomb, trio, chain, pair, solo) holding the lowest card",
              "follow": "follow with the lowest reply of the same type",
              "pass": "pass: no reply of the same type, and the partner acted last (played or passed)",
              "random": "random fallback: no reply of the same type, and the partner did not act last"}


@register_agent("rulev1")
class RuleV1Agent(SmallestAgent):
    """RLCard's ``DouDizhuRuleAgentV1`` inside ddzlab (see the module docstring).

    ``seed`` (int, SeedSequence or Generator) seeds ``random_state``, the RandomState its
    random fallback draws from. Bids like `SmallestAgent`. Standard rules only.
    """

    name = "rulev1"
    last_eval: Optional[dict] = None

    def bid(self, obs: Observation) -> int:
        self.last_eval = None
        return super().bid(obs)

    def __init__(self, seed: SeedLike = None) -> None:
        t = _tables()                                   # AgentError without RLCard
        self.rule = t.agent_class()
        self._seed = int(as_rng(seed).integers(2**63))
        self._random_state: Optional[np.random.RandomState] = None
        self._np = _NumpyView(self)
        self._history: tuple = ()                      # the trace of this history, cached
        self._landlord: Optional[int] = None
        self._trace: list[tuple[int, str]] = []

    @property
    def random_state(self) -> np.random.RandomState:
        """The RandomState RLCard's ``np.random.choice`` draws from for this agent."""
        if self._random_state is None:
            self._random_state = np.random.RandomState(np.random.MT19937(self._seed))
        return self._random_state

    @random_state.setter
    def random_state(self, value: np.random.RandomState) -> None:
        self._random_state = value

    def _rlcard_trace(self, obs: Observation) -> list[tuple[int, str]]:
        history, n = obs.history, len(self._history)
        if len(history) < n or history[:n] != self._history or obs.landlord != self._landlord:
            self._trace, n = [], 0                   # another game, or moves taken back
        self._trace += rlcard_trace(obs, n)
        self._history, self._landlord = history, obs.landlord
        return self._trace.copy()

    def play(self, obs: Observation) -> Move:
        _check(obs)
        actions, moves = rlcard_actions(obs)
        state = rlcard_state(obs, actions, self._rlcard_trace(obs))
        module = _tables().module
        with _SWAP:                                  # one agent's view at a time (threads)
            numpy_seen = module.np
            module.np = self._np
            draws = _draws(self.random_state)
            try:
                answer = self.rule.step(state)
            except KeyError as e:
                raise AgentError(f"RLCard's rule agent has no entry {e} for this position "
                                 f"(seat {obs.seat}, hand {obs.hand})") from None
            finally:
                module.np = numpy_seen
        move = moves.get(answer)
        if move is None:
            raise AgentError(f"RLCard's rule agent answered {answer!r}, not one of the moves "
                             f"RLCard lists for seat {obs.seat} here (hand {obs.hand})")
        self.last_eval = {"rule": self._rule_used(obs, move, _draws(self.random_state) != draws)}
        return move

    @staticmethod
    def _rule_used(obs: Observation, move: Move, drew: bool) -> str:
        """Which of RLCard's rules chose ``move`` (read from the situation, the answer and
        whether the agent's generator drew). RLCard passes without a reply of the type to
        beat when the seat that acted last (pass or play) is the partner; otherwise it draws
        a random legal move, and with pass the only one numpy returns it without a draw."""
        if obs.last_move is None:
            return RULES_TOLD["lead"]
        partner_acted = obs.seat != obs.landlord and (obs.seat - 1) % 3 != obs.landlord
        if drew or (move.is_pass and not partner_acted):
            return RULES_TOLD["random"]
        return RULES_TOLD["pass"] if move.is_pass else RULES_TOLD["follow"]

__all__ = ["RuleV1Agent", "RULES_TOLD", "rlcard_state", "rlcard_actions", "rlcard_trace", "rlcard_type", "PEERS_HINT"]
