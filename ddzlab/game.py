"""The game: bidding (叫分) → play → finished, with scoring, observations, copy and undo.

`Game` is a mutable state in the style of OpenSpiel's Python games: it lists the legal
actions of the seat to act, applies one, can be copied cheaply or undone, and reports
scores. Its fixed facts (rule set, players, landlord mode) are declared once in a frozen
`GameSpec`. What a seat may see is a separate frozen `Observation`
(``game.observation(seat)``), never the state itself.

Seats are numbered in play order: seat ``s + 1`` (mod players) acts after seat ``s``.
With the landlord at seat ``L``, seat ``L + 1`` is its *down* farmer (landlord_down in
DouZero) and ``L + 2`` its *up* farmer.

Modes:

* bidding (default for the standard rules): from ``first_bidder`` each seat bids 1..3
  above the current bid or passes (0); 3 ends it at once; after one round the highest
  bidder is landlord and takes the kitty, which everyone sees; if all pass the game
  redeals with its own generator and bidding starts again.
* fixed landlord (``landlord=0``: DouZero's evaluation mode, and the mini rules): no
  bidding, base 1, that seat takes the kitty and leads.
* two players (``players=2``: docs/definitions.md#two-player-mode): two hands, no kitty, no landlord,
  seat 0 leads, the first to empty its hand wins ``2**bombs`` from the other.

Scores (docs/rules.md#the-standard-game): the landlord wins or loses ``2 × bid × multiplier``, each farmer
the opposite half; the multiplier doubles per bomb or rocket, and once more for spring
(the farmers played no card) or anti-spring (the landlord played only its first move).

>>> from ddzlab.deals import generate_deals
>>> g = Game(generate_deals(1, seed=0)[0], landlord=0)
>>> g.phase.name, g.to_act, len(g.observation(0).hand)
('PLAY', 0, 20)
>>> m = g.play("3")
>>> g.play("pass", seat=0)
Traceback (most recent call last):
...
ddzlab.errors.OutOfTurnError: seat 0 cannot play now: it is seat 1's turn
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Optional, Sequence, Union

import numpy as np

from .cards import N_SLOTS, Hand, bits_contain, bits_size, format_bits, missing_bits
from .deals import Deal, SeedLike, as_rng, deal_cards
from .errors import (AmbiguousMoveError, DealFileError, IllegalCombinationError, IllegalMoveError, OutOfTurnError,
                     RulesError)
from .moves import PASS, PASS_WORDS, Move, detect, generator, parse_move
from .rules import STANDARD, Kind, Rules, get_rules



class Phase(IntEnum):
    BIDDING = 0
    PLAY = 1
    FINISHED = 2


@dataclass(frozen=True)
class GameSpec:
    """A game's fixed facts, declared once: rule set, seats, how the landlord is chosen."""
    rules: Rules
    players: int
    bidding: bool                 # True: 叫分 decides the landlord
    fixed_landlord: Optional[int]  # the landlord seat when there is no bidding (3 players)
    first_bidder: int
    max_bid: int

    @property
    def two_player(self) -> bool:
        return self.players == 2

    @property
    def max_plays(self) -> int:
        """An upper bound on play actions (each non-pass removes ≥ 1 card)."""
        return self.rules.deck_size * self.players


@dataclass(frozen=True, slots=True)
class Observation:
    """What one seat may see: its own cards and everything public, nothing else.

    ``legal_moves`` / ``legal_bids`` are filled only for the seat to act.
    ``kitty`` is None until the landlord is known (and in two-player games).
    ``from_game``: made by `Game.observation`, so its facts are one game's own and agree
    (`ddzlab.determinize.check_position` need not replay them); False for an observation
    built or changed by hand (``dataclasses.replace`` makes a new one, False).
    """
    seat: int
    role: str                      # 'landlord', 'down', 'up', 'bidder' or 'player' (1v1)
    phase: Phase
    rules: Rules
    players: int
    hand: Hand
    landlord: Optional[int]
    kitty: Optional[Hand]
    bids: tuple[tuple[int, int], ...]
    bid: int                       # highest bid so far (the base score once play starts)
    history: tuple[tuple[int, Move], ...]
    cards_left: tuple[int, ...]
    played_bits: tuple[int, ...]   # packed cards each seat has played (see `played`)
    last_move: Optional[Move]      # the move to beat (None when leading)
    last_seat: Optional[int]
    to_act: Optional[int]
    bombs: int
    legal_moves: tuple[Move, ...]
    legal_bids: tuple[int, ...]
    from_game: bool = field(default=False, init=False, repr=False, compare=False)

    @property
    def played(self) -> tuple[Hand, ...]:
        """Cards each seat has played so far."""
        return tuple(Hand.from_bits(b) for b in self.played_bits)

    @property
    def unseen(self) -> Hand:
        """Cards this seat cannot see: not in its hand, not played, not the known kitty
        cards still in the landlord's hand (i.e. the other seats' hands, plus undealt
        cards in a two-player game)."""
        bits = self.rules.deck - self.hand.bits - sum(self.played_bits)
        if self.kitty is not None and self.landlord is not None and self.landlord != self.seat:
            bits -= kitty_left(self.kitty.bits, self.played_bits[self.landlord])
        return Hand.from_bits(bits)

    @property
    def leading(self) -> bool:
        return self.last_move is None

    @property
    def my_turn(self) -> bool:
        return self.to_act == self.seat


Action = Union[Move, str, Hand, int]


class Game:
    """One game of Dou Dizhu; see the module docstring for modes and scoring.

    ``Game(deal=None, *, rules=STANDARD, seed=None, landlord=None, first_bidder=0,
    players=None)``: ``deal`` fixes the cards (else they are dealt from ``seed``);
    ``seed`` (int, SeedSequence or Generator) also drives redeals after an all-pass
    auction (by default derived from the deal, so a game is reproducible).
    """

    __slots__ = ("spec", "rules", "players", "gen", "deal", "redeals", "hands", "sizes", "played",
                 "plays", "history", "bids", "bid", "landlord", "phase", "to_act", "last_move",
                 "last_seat", "passes", "bombs", "winner", "_rng", "_legal", "_undo", "_kitty")

    def __init__(self, deal: Optional[Deal] = None, *, rules: Union[Rules, str] = STANDARD,
                 seed: SeedLike = None, landlord: Optional[int] = None, first_bidder: int = 0,
                 players: Optional[int] = None) -> None:
        rules = get_rules(rules)
        players = rules.players if players is None else players
        if players not in (2, 3):
            raise RulesError(f"{players} players: ddzlab plays 3 (standard) or 2 (1v1)")
        two = players == 2
        bidding = rules.bidding and landlord is None and not two
        if not two and not bidding and landlord is None:
            landlord = 0
        for name, value in (("landlord", landlord), ("first_bidder", first_bidder)):
            if value is not None and not 0 <= value < players:
                raise RulesError(f"{name}={value} is not a seat of a {players}-player game")
        if two and landlord is not None:
            raise RulesError("a two-player game has no landlord")
        self.spec = GameSpec(rules, players, bidding, landlord, first_bidder, rules.max_bid)
        self.rules = rules
        self.players = players
        self.gen = generator(rules)
        if seed is None and deal is not None:
            seed = np.random.SeedSequence([*deal.hands, deal.kitty])   # reproducible redeals from the deal itself
        self._rng = as_rng(seed)
        if deal is None:
            deal = deal_cards(rules, self._rng, players)
        else:
            try:
                deal.validate(rules, players)
            except DealFileError as e:
                raise RulesError(f"bad deal: {e}") from None
        self.redeals = 0
        self._undo: list = []
        self._start(deal)

    @classmethod
    def resume(cls, deal: Deal, history: Sequence[tuple[int, Move]] = (),
               bids: Sequence[tuple[int, int]] = (), *, rules: Union[Rules, str] = STANDARD,
               seed: SeedLike = None, landlord: Optional[int] = None, first_bidder: int = 0,
               players: Optional[int] = None, check: bool = True) -> "Game":
        """The game dealt ``deal`` and taken through ``bids`` then ``history`` (seat, move)
        pairs: the same state, undo stack included, as playing them one by one.

        It rebuilds a game at a given point (`ddzlab.determinize` does so for a guessed
        deal). ``check=False`` skips the legality test of each move (the caller vouches
        for them: a seat must hold the cards it plays), which makes rebuilding cheap.
        """
        game = cls(deal, rules=rules, seed=seed, landlord=landlord, first_bidder=first_bidder,
                   players=players)
        for seat, value in bids:
            game.make_bid(value, seat)
        if bids and game.redeals:
            raise IllegalMoveError("the bids end in an all-pass auction: the deal is gone")
        for seat, move in history:
            if check:
                game.play(move, seat)
            else:
                if game.phase is not Phase.PLAY or seat != game.to_act:
                    game._check_turn(seat, Phase.PLAY, "play")
                game._push(seat, move)
        return game

    # -- setting up -------------------------------------------------------------------
    def _start(self, deal: Deal) -> None:
        spec = self.spec
        self.deal = deal
        self.hands = list(deal.hands)
        self.sizes = [bits_size(b) for b in self.hands]
        self.played = [0] * self.players
        self.plays = [0] * self.players
        self.history: list[tuple[int, Move]] = []
        self.bids: list[tuple[int, int]] = []
        self.bid = 0
        self.landlord: Optional[int] = None
        self.last_move: Optional[Move] = None
        self.last_seat: Optional[int] = None
        self.passes = 0
        self.bombs = 0
        self.winner: Optional[int] = None
        self._legal: Optional[list[Move]] = None
        self._kitty: Optional[Hand] = None
        if spec.bidding:
            self.phase = Phase.BIDDING
            self.to_act: Optional[int] = spec.first_bidder
        elif spec.two_player:
            self.phase = Phase.PLAY
            self.to_act = 0
            self.bid = 1
        else:
            self._make_landlord(spec.fixed_landlord, 1)   # type: ignore[arg-type]  # fixed when not bidding

    def _make_landlord(self, seat: int, bid: int) -> None:
        self.landlord = seat
        self.bid = bid
        self._kitty = Hand.from_bits(self.deal.kitty)
        self.hands[seat] += self.deal.kitty
        self.sizes[seat] += bits_size(self.deal.kitty)
        self.phase = Phase.PLAY
        self.to_act = seat

    # -- facts ------------------------------------------------------------------------
    @property
    def kitty(self) -> Optional[Hand]:
        """The kitty once it has been revealed to everyone (None before, and in 1v1)."""
        if self.landlord is None:
            return None
        return self._kitty

    def hand(self, seat: int) -> Hand:
        """The cards ``seat`` holds now (full information: not for agents)."""
        return Hand.from_bits(self.hands[seat])

    def role(self, seat: int) -> str:
        if self.spec.two_player:
            return "player"
        if self.landlord is None:
            return "bidder"
        return ("landlord", "down", "up")[(seat - self.landlord) % 3]

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.FINISHED

    @property
    def spring(self) -> bool:
        """春天 or anti-spring: the losing side played (almost) nothing. Only once finished."""
        if self.phase is not Phase.FINISHED or self.landlord is None:
            return False
        lord = self.landlord
        if self.winner == lord:
            return all(self.plays[s] == 0 for s in range(self.players) if s != lord)
        return self.plays[lord] == 1

    @property
    def multiplier(self) -> int:
        """2 per bomb or rocket so far, ×2 for (anti-)spring once the game is over."""
        return (1 << self.bombs) * (2 if self.spring else 1)

    @property
    def landlord_won(self) -> Optional[bool]:
        if self.phase is not Phase.FINISHED or self.landlord is None:
            return None
        return self.winner == self.landlord

    @property
    def scores(self) -> Optional[tuple[int, ...]]:
        """Points per seat once finished (they sum to zero), else None."""
        if self.phase is not Phase.FINISHED:
            return None
        if self.spec.two_player:
            unit = 1 << self.bombs
            return tuple(unit if s == self.winner else -unit for s in range(2))
        unit = self.bid * self.multiplier
        sign = 1 if self.winner == self.landlord else -1
        return tuple(sign * (2 * unit if s == self.landlord else -unit) for s in range(3))

    @property
    def actions(self) -> list[Union[int, Move]]:
        """Bids (ints) then moves, in order, since the last (re)deal: enough to replay."""
        return [b for _, b in self.bids] + [m for _, m in self.history]

    # -- legal actions ----------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        """Moves the seat to act may play (pass last when following); empty outside play."""
        if self.phase is not Phase.PLAY:
            return []
        return list(self._legal_list())

    def _legal_list(self) -> list[Move]:
        legal = self._legal
        if legal is None:
            bits = self.hands[self.to_act]  # type: ignore[index]  # a seat during play
            if self.last_move is None:
                legal = self.gen.leading(bits)
            else:
                legal = self.gen.following(bits, self.last_move)
            self._legal = legal
        return legal

    def legal_bids(self) -> list[int]:
        """0 (pass) and every bid above the current one; empty outside bidding."""
        if self.phase is not Phase.BIDDING:
            return []
        return [0, *range(self.bid + 1, self.spec.max_bid + 1)]

    # -- acting -----------------------------------------------------------------------
    def _check_turn(self, seat: Optional[int], phase: Phase, verb: str) -> int:
        if self.phase is not phase:
            if self.phase is Phase.FINISHED:
                raise OutOfTurnError(f"cannot {verb}: the game is over")
            raise OutOfTurnError(f"cannot {verb} during {self.phase.name.lower()}")
        if seat is not None and seat != self.to_act:
            raise OutOfTurnError(f"seat {seat} cannot {verb} now: it is seat {self.to_act}'s turn")
        return self.to_act  # type: ignore[return-value]  # a seat in bidding and play

    def apply(self, action: Action, seat: Optional[int] = None) -> None:
        """Apply a bid (int, during bidding) or a move (anything else)."""
        if self.phase is Phase.BIDDING and isinstance(action, (int, np.integer)):
            self.make_bid(int(action), seat)
        else:
            self.play(action, seat)

    def make_bid(self, value: int, seat: Optional[int] = None) -> None:
        """The seat to act bids ``value`` (1..max_bid, above the current bid) or passes (0)."""
        s = self._check_turn(seat, Phase.BIDDING, "bid")
        if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
            raise IllegalMoveError(f"a bid is an integer 0..{self.spec.max_bid}, not {value!r}")
        value = int(value)
        if value != 0 and not self.bid < value <= self.spec.max_bid:
            raise IllegalMoveError(f"seat {s} cannot bid {value}: bid 0 (pass) or "
                                   f"{self.bid + 1}..{self.spec.max_bid}")
        self._undo.append((1, self._snapshot()))
        self.bids.append((s, value))
        if value:
            self.bid = value
        players = self.players
        if value == self.spec.max_bid:
            self._make_landlord(s, value)
        elif len(self.bids) == players:
            if self.bid == 0:
                self._redeal()
            else:
                best = max(self.bids, key=lambda sb: sb[1])[0]
                self._make_landlord(best, self.bid)
        else:
            self.to_act = (s + 1) % players

    def _redeal(self) -> None:
        self.redeals += 1
        self._start(deal_cards(self.rules, self._rng, self.players))

    def play(self, action: Action, seat: Optional[int] = None) -> Move:
        """The seat to act plays ``action`` (a `Move`, card text like ``'33344458'``,
        ``'pass'``, or a `Hand`). Returns the move played.

        Raises `OutOfTurnError`, `IllegalMoveError`, `IllegalCombinationError`, or for
        text `CardError` / `RulesError` (`ddzlab.moves.parse_move` reads it), and leaves
        the state unchanged if the action is not allowed.
        """
        s = self._check_turn(seat, Phase.PLAY, "play")
        legal = self._legal_list()
        if isinstance(action, Move) and any(m is action for m in legal):
            move = action       # the usual case: an agent returns one of the listed moves
        else:
            move = self._resolve(action, s, legal)
        self._push(s, move)
        return move

    def push(self, move: Move) -> None:
        """The seat to act plays ``move``, which must be one of `legal_moves` -- unchecked:
        the fast path for searches that only ever pick listed moves (`play` checks)."""
        self._push(self.to_act, move)  # type: ignore[arg-type]  # a seat during play

    def _push(self, s: int, move: Move) -> None:
        """Apply ``move`` by seat ``s`` (the seat to act) without checking it."""
        last_move, last_seat, passes = self.last_move, self.last_seat, self.passes
        self._undo.append((0, s, move, last_move, last_seat, passes))
        self.history.append((s, move))
        self._legal = None
        if move.kind is Kind.PASS:
            passes += 1
            if passes == self.players - 1:      # everyone else passed: the trick is over
                self.last_move = self.last_seat = None
                self.passes = 0
            else:
                self.passes = passes
            self.to_act = (s + 1) % self.players
            return
        cards = move.cards
        self.hands[s] -= cards
        self.played[s] += cards
        self.sizes[s] -= move.size
        self.plays[s] += 1
        if move.is_bomb:
            self.bombs += 1
        self.last_move, self.last_seat, self.passes = move, s, 0
        if self.sizes[s] == 0:
            self.phase = Phase.FINISHED
            self.winner = s
            self.to_act = None
        else:
            self.to_act = (s + 1) % self.players

    def _resolve(self, action: Action, seat: int, legal: list[Move]) -> Move:
        """Turn text / a hand / a foreign Move into the legal move with those cards, or
        raise the error that names why it cannot be played."""
        if isinstance(action, str):
            action = parse_move(action, self.rules)   # CardError / IllegalCombinationError
        if isinstance(action, Move):
            cards = -1 if action.kind is Kind.PASS else action.cards
        elif isinstance(action, Hand):
            cards = action.bits if action.bits else -1     # no cards: a pass
        else:
            raise TypeError(f"expected a Move, card text or a Hand, not {type(action).__name__}")
        if cards == -1:
            if self.last_move is None:
                raise IllegalMoveError(f"seat {seat} cannot pass: it leads this trick and must play")
            return PASS
        hand = self.hands[seat]
        if not bits_contain(hand, cards):
            raise IllegalMoveError(f"{format_bits(cards)} is not in seat {seat}'s hand "
                                   f"({format_bits(hand)}): "
                                   f"missing {format_bits(missing_bits(hand, cards))}")
        if isinstance(action, Move) and action.reading is not None:
            for m in legal:
                if m == action:
                    return m
        else:
            found = [m for m in legal if m.cards == cards]
            if len(found) > 1 and any(m.reading is not None for m in found):
                raise AmbiguousMoveError(
                    f"{format_bits(cards)} can be played as {', '.join(map(str, found))}: "
                    "give the reading of F, e.g. " + str(found[-1]), tuple(found))
            if found:
                return found[0]
        detected = detect(cards, self.rules, action.reading if isinstance(action, Move) else None)
        if detected is None:
            raise IllegalCombinationError(f"{format_bits(cards)} is not a combination of the "
                                          f"{self.rules.name} rules")
        last = self.last_move
        assert last is not None             # a pass was resolved above, so this is a follow
        raise IllegalMoveError(
            f"{format_bits(cards)} ({detected.kind.label}) does not beat {last} "
            f"({last.kind.label}, played by seat {self.last_seat}): play a higher "
            f"{last.kind.label}{f' of the same length ({last.length})' if last.length > 1 else ''}"
            f", a bomb, the rocket, or pass")

    # -- undo / copy ------------------------------------------------------------------
    def _snapshot(self) -> tuple:
        rng_state = self._rng.bit_generator.state
        return (self.deal, tuple(self.hands), tuple(self.sizes), tuple(self.bids), self.bid,
                self.landlord, self.phase, self.to_act, self.redeals, rng_state)

    def undo(self) -> None:
        """Take back the last bid or move (raises `IllegalMoveError` if there is none)."""
        if not self._undo:
            raise IllegalMoveError("nothing to undo")
        rec = self._undo.pop()
        if rec[0] == 1:
            deal, hands, sizes, bids, bid, landlord, phase, to_act, redeals, rng_state = rec[1]
            self.deal, self.hands, self.sizes = deal, list(hands), list(sizes)
            self.bids, self.bid, self.landlord = list(bids), bid, landlord
            self.phase, self.to_act, self.redeals = phase, to_act, redeals
            self._kitty = Hand.from_bits(deal.kitty) if landlord is not None else None
            self._rng.bit_generator.state = rng_state
            self._legal = None
            return
        _, s, move, last_move, last_seat, passes = rec
        self.history.pop()
        if move.kind is not Kind.PASS:
            cards = move.cards
            self.hands[s] += cards
            self.played[s] -= cards
            self.sizes[s] += move.size
            self.plays[s] -= 1
            if move.is_bomb:
                self.bombs -= 1
        self.last_move, self.last_seat, self.passes = last_move, last_seat, passes
        self.phase = Phase.PLAY
        self.winner = None
        self.to_act = s
        self._legal = None

    def copy(self) -> "Game":
        """An independent copy (lists copied, immutable parts shared; no deepcopy)."""
        g = object.__new__(Game)
        g.spec, g.rules, g.players, g.gen = self.spec, self.rules, self.players, self.gen
        g.deal, g.redeals = self.deal, self.redeals
        g.hands, g.sizes = self.hands[:], self.sizes[:]
        g.played, g.plays = self.played[:], self.plays[:]
        g.history, g.bids, g._undo = self.history[:], self.bids[:], self._undo[:]
        g.bid, g.landlord, g.phase, g.to_act = self.bid, self.landlord, self.phase, self.to_act
        g.last_move, g.last_seat, g.passes = self.last_move, self.last_seat, self.passes
        g.bombs, g.winner, g._legal, g._kitty = self.bombs, self.winner, self._legal, self._kitty
        if self.phase is Phase.BIDDING or (self._undo and self._undo[0][0] == 1):
            # the generator only serves redeals: share it unless this game can still reach
            # the bidding (now, or by undoing bids, which are always the first records)
            rng = np.random.Generator(type(self._rng.bit_generator)())
            rng.bit_generator.state = self._rng.bit_generator.state
            g._rng = rng
        else:
            g._rng = self._rng
        return g

    __copy__ = copy

    # -- observing --------------------------------------------------------------------
    def observation(self, seat: int) -> Observation:
        """What ``seat`` may see now (its own hand, public facts, its legal actions)."""
        if not 0 <= seat < self.players:
            raise OutOfTurnError(f"seat {seat} is not a seat of this {self.players}-player game")
        acting = seat == self.to_act
        phase = self.phase
        legal = tuple(self._legal_list()) if acting and phase is Phase.PLAY else ()
        bids = tuple(self.legal_bids()) if acting and phase is Phase.BIDDING else ()
        from_bits = Hand.from_bits
        obs = Observation(
            seat, self.role(seat), phase, self.rules, self.players, from_bits(self.hands[seat]),
            self.landlord, self.kitty, tuple(self.bids), self.bid, tuple(self.history),
            tuple(self.sizes), tuple(self.played), self.last_move,
            self.last_seat, self.to_act, self.bombs, legal, bids)
        object.__setattr__(obs, "from_game", True)
        return obs

    def __repr__(self) -> str:
        hands = " / ".join(format_bits(b) for b in self.hands)
        return (f"<Game {self.rules.name} {self.phase.name.lower()} to_act={self.to_act} "
                f"landlord={self.landlord} bid={self.bid} bombs={self.bombs} hands={hands}>")


def kitty_left(kitty: int, played: int) -> int:
    """Kitty cards the landlord has not played yet (they are known to all), the flower
    card ``F`` of the wildcard rules included."""
    out = 0
    for r in range(N_SLOTS):
        k = (kitty >> (4 * r)) & 15
        if k:
            # suits do not matter: of a rank, at least k - played copies are still held
            out |= max(0, k - ((played >> (4 * r)) & 15)) << (4 * r)
    return out


__all__ = ["Game", "GameSpec", "Observation", "Phase", "PASS_WORDS", "Action", "kitty_left"]
