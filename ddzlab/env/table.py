"""What both environments share: dealing, actions ↔ moves and bids, masks, encodings, rewards.

A `Table` holds an environment's fixed facts (rule set, bidding or a fixed landlord, reward,
encoding) and turns a `Game` into what a learner sees. It imports neither PettingZoo nor
Gymnasium, so the two environments on top of it stay thin.

Actions are integers: ``0 .. len(index) - 1`` are the moves of the rule set's `MoveIndex`
(0 is pass); in bidding mode ``len(index) + b`` bids ``b`` (0 = pass the bid, 1..3).

Rewards, given to every seat when the game ends (the arena's measures, from each seat's side):

* ``"wp"``: +1 if the seat's side won, −1 if it lost (the arena's WP is the mean of (r + 1) / 2);
* ``"adp"``: ``±2**bombs``, base 1 doubled by each bomb or rocket, spring not counted (the
  arena's ADP);
* ``"score"``: the game's own points (`Game.scores`: bid × multiplier with spring, the
  landlord's counted twice) -- the one that rewards bidding well.
"""
from __future__ import annotations

from typing import Optional, Union

import numpy as np

from ..deals import deal_cards
from ..errors import DdzError, IllegalMoveError, OutOfTurnError, RulesError, SeedError
from ..game import Game, Phase
from ..moves import Move
from ..rules import Rules, get_rules
from .encode import COMPACT_SIZE, compact_parts, douzero_x_parts, douzero_z_parts
from .index import MoveIndex, move_index

class EnvError(DdzError):
    """A bad environment setting: an unknown reward, encoding, seat or render mode, or an
    encoding the chosen mode cannot give."""


class EpisodeOverError(OutOfTurnError, EnvError):
    """A step after the episode has ended (or before the first ``reset``): call ``reset()``.
    Raised before anything changes; an `OutOfTurnError`, so an `IllegalMoveError` too."""


def check_seed(seed: object) -> Optional[int]:
    """A ``reset`` seed as Gymnasium takes it: None, or a whole number >= 0 (a numpy integer
    is taken as its value); anything else raises `ddzlab.errors.SeedError` naming it."""
    if seed is None:
        return None
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)) and seed >= 0:
        return int(seed)
    raise SeedError(f"seed {seed!r} ({type(seed).__name__}): a reset seed is None or a whole "
                    "number of at least 0")


REWARDS = ("wp", "adp", "score")
ENCODINGS = ("compact", "douzero")
ROLE_NAMES = ("landlord", "landlord_down", "landlord_up")
#: DouZero's x_no_action size per role, plus its 5×162 history
DOUZERO_SIZES = {"landlord": 319 + 810, "landlord_down": 430 + 810, "landlord_up": 430 + 810}


class Table:
    """The fixed facts of an environment and the translation between games and learners."""

    def __init__(self, rules: Union[Rules, str] = "standard", bidding: bool = False,
                 reward: str = "wp", encoding: str = "compact") -> None:
        rules = get_rules(rules)
        self.index: MoveIndex = move_index(rules)      # refuses rule sets it cannot number
        if bidding and not rules.bidding:
            raise RulesError(f"the {rules.name} rules have no bidding: use a fixed landlord")
        if reward not in REWARDS:
            raise EnvError(f"unknown reward {reward!r}; choose from {', '.join(REWARDS)}")
        if encoding not in ENCODINGS:
            raise EnvError(f"unknown encoding {encoding!r}; choose from {', '.join(ENCODINGS)}")
        if encoding == "douzero" and bidding:
            raise EnvError("DouZero's encoding describes card play only: use encoding='compact' with bidding")
        self.rules, self.bidding, self.reward, self.encoding = rules, bidding, reward, encoding
        self.n_moves = len(self.index)
        self.n_actions = self.n_moves + (rules.max_bid + 1 if bidding else 0)
        #: seat names: roles with a fixed landlord (seat 0), seats when bidding decides
        self.agents = tuple(f"player_{s}" for s in range(3)) if bidding else ROLE_NAMES

    # -- games ------------------------------------------------------------------------
    def new_game(self, rng: np.random.Generator) -> Game:
        """A fresh deal from ``rng`` (redeals after an all-pass auction follow from it too)."""
        deal = deal_cards(self.rules, rng)
        seed = int(rng.integers(2**63))
        return Game(deal, rules=self.rules, seed=seed, landlord=None if self.bidding else 0)

    def obs_size(self, seat: int) -> int:
        if self.encoding == "compact":
            return COMPACT_SIZE
        return DOUZERO_SIZES[ROLE_NAMES[seat]]

    def observation(self, game: Game, seat: int) -> np.ndarray:
        """The encoded view of ``seat`` (only what it may see: its own hand and public facts)."""
        if self.encoding == "compact":
            kitty = game.kitty
            return compact_parts(seat, self.rules.deck, game.hands[seat], game.played, game.history,
                                 None if kitty is None else kitty.bits, game.last_move, game.landlord,
                                 game.sizes, game.bids, game.bid, game.bombs, game.phase)
        assert game.landlord is not None               # the DouZero encoding has a fixed landlord
        x = douzero_x_parts(seat, game.landlord, self.rules.deck, game.hands[seat], game.played, game.last_move,
                            game.history, game.sizes, game.bombs)
        return np.concatenate((x, douzero_z_parts(game.history).ravel()))

    def legal(self, game: Game) -> dict[int, Union[Move, int]]:
        """{action: move or bid} for the seat to act (empty once the game is over)."""
        if game.phase is Phase.PLAY:
            index = self.index._index
            return {index[m]: m for m in game._legal_list()}
        if game.phase is Phase.BIDDING:
            return {self.n_moves + b: b for b in game.legal_bids()}
        return {}

    def mask(self, legal: dict) -> np.ndarray:
        out = np.zeros(self.n_actions, np.int8)
        if legal:
            out[list(legal)] = 1
        return out

    def describe(self, action: int) -> str:
        if action < self.n_moves:
            return str(self.index.moves[action])
        return f"bid {action - self.n_moves}" if action > self.n_moves else "pass (bidding)"

    def apply(self, game: Game, action: object, legal: dict, seat: Optional[int] = None) -> None:
        """Play ``action`` for the seat to act, or raise a `ddzlab.errors.IllegalMoveError`
        naming why not (the game is then unchanged)."""
        if game.phase is Phase.FINISHED:
            raise OutOfTurnError("the game is over: reset the environment")
        to_act = game.to_act
        assert to_act is not None                      # someone acts until the game is over
        if seat is not None and seat != to_act:
            raise OutOfTurnError(f"{self.agents[seat]} cannot act now: it is {self.agents[to_act]}'s turn")
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalMoveError(f"an action is an integer index, not {type(action).__name__} {action!r}")
        a = int(action)
        if not 0 <= a < self.n_actions:
            raise IllegalMoveError(f"action {a} is outside the action space 0..{self.n_actions - 1}")
        choice = legal.get(a)
        if choice is None:
            who = self.agents[to_act]
            if game.phase is Phase.BIDDING:
                raise IllegalMoveError(f"action {a} ({self.describe(a)}) is masked out: {who} is bidding and may "
                                       f"{', '.join(self.describe(b) for b in sorted(legal))}")
            what = "a bid" if a >= self.n_moves else f"the move {self.describe(a)}"
            beat = f" to beat {game.last_move}" if game.last_move is not None else " as a lead"
            raise IllegalMoveError(f"action {a} ({what}) is masked out: not legal for {who} now{beat}; "
                                   f"{len(legal)} actions are legal (see the action mask)")
        if isinstance(choice, Move):
            game.push(choice)
        else:
            game.make_bid(choice)

    def rewards(self, game: Game) -> tuple[float, ...]:
        """Each seat's reward once the game is over (zeros before)."""
        if game.phase is not Phase.FINISHED:
            return (0.0, 0.0, 0.0)
        scores = game.scores
        assert scores is not None                      # a finished game has its scores
        if self.reward == "score":
            return tuple(float(s) for s in scores)
        lord = game.landlord
        lord_won = game.winner == lord
        unit = 1.0 if self.reward == "wp" else float(2 ** game.bombs)
        return tuple(unit if (s == lord) == lord_won else -unit for s in range(3))

    def render(self, game: Game) -> str:
        lines = [f"{self.rules.name} rules, {game.phase.name.lower()}, bombs {game.bombs}, bid {game.bid}"]
        for s in range(3):
            name = self.agents[s]
            role = game.role(s)
            tag = f" ({role})" if self.bidding else ""
            arrow = " <- to act" if s == game.to_act else ""
            lines.append(f"  {name}{tag}: {game.hand(s) or '-'} [{game.sizes[s]}]{arrow}")
        if game.last_move is not None and game.last_seat is not None:
            lines.append(f"  to beat: {game.last_move} by {self.agents[game.last_seat]}")
        if game.is_over and game.winner is not None:
            lines.append(f"  over: {self.agents[game.winner]} went out; rewards {self.rewards(game)}")
        return "\n".join(lines)

    def show(self, game: Optional[Game], mode: Optional[str]) -> Optional[str]:
        """Both environments' ``render``: the position as text (``ansi``), printed (``human``,
        returns None), or None when no game is on."""
        if game is None:
            return None
        text = self.render(game)
        if mode == "human":
            print(text)
            return None
        return text


__all__ = ["Table", "EnvError", "EpisodeOverError", "check_seed", "REWARDS", "ENCODINGS", "ROLE_NAMES", "DOUZERO_SIZES"]
