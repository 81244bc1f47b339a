"""Moves: the one place in ddzlab that knows which card combinations exist.

A `Move` is a small immutable value: its `Kind`, main rank (lowest rank of the main part),
chain length and cards (packed like a `Hand`), and under the wildcard rules (docs/rules.md#other-rule-sets) the
`reading`: the rank the flower card ``F`` is read as (None when no ``F`` is paid). The cards are
what the player pays; kind, rank and length say which combination they are read as, so
``45678F`` is two moves, printed ``45678F=3`` (the chain 3-8) and ``45678F=9`` (4-9). `legal_moves` lists every move a hand can
lead, or every reply to a move plus pass; `detect` classifies any multiset of cards.

The enumeration lives in `MoveGenerator` (one per rule set, from the cached `generator`): it
reads the rule set's chain and attachment specs, so variants are data. The package's files:

* ``move.py``: the `Move` value, `PASS` and the bomb order;
* ``generator.py``: `MoveGenerator`, the enumeration for rule sets without a flower card;
* ``wildcard.py``: `WildcardGenerator`, the flower card ``F`` expanded over its readings;
* this module: the public functions (`legal_moves`, `detect`, `parse_move`, ...).

For the standard rules the leading set equals DouZero's (``MovesGener`` filtered by its own
``move_detector``), which fixes the kicker conventions:

* kickers never share a rank with the main part; pair kickers come from distinct ranks;
* solo kickers may repeat a rank (a pair can serve as two solos, B+R as two solos), but
  never all four copies, and three copies only when exactly three kickers are needed;
* one set of cards is listed once. ``333444555666`` leads as a trio chain of four, and
  follows a three-trio plane as ``444555666`` carrying ``333`` (the higher reading).

>>> from ddzlab.cards import Hand
>>> [str(m) for m in legal_moves(Hand("3334"))]
['3', '4', '33', '333', '3334']
>>> m = detect("33344458")
>>> m.kind.name, m.rank_char, m.length
('PLANE_SOLO', '3', 2)
>>> [str(m) for m in legal_moves(Hand("4445558BR"), to_beat=m)]
['4445558B', '4445558R', '444555BR', 'BR', 'pass']
"""
from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Optional, Union, cast

from ..cards import F_BIT, GUARD_BITS, R2, RANK_CHARS, RB, Hand, as_hand, bits_size, format_bits, rank_of, unpack
from ..errors import AmbiguousMoveError, CardError, IllegalCombinationError, RulesError
from ..rules import STANDARD, Kind, Rules, get_rules
from .generator import MoveGenerator
from .move import _F_MASK, ALL_BOMB_ORDER, PASS, PASS_WORDS, Move, bomb_tiers
from .wildcard import WildcardGenerator

@lru_cache(maxsize=None)
def generator(rules: Rules) -> Union[MoveGenerator, WildcardGenerator]:
    """The move generator of a rule set, built once and cached (``generator.cache_clear()``
    drops it, e.g. for a cold benchmark): a `WildcardGenerator` for rules with a flower card."""
    if rules.wildcard is not None:
        return WildcardGenerator(rules)
    return MoveGenerator(rules)


def hand_bits(hand: Union[Hand, str, int], rules: Rules) -> int:
    """Packed cards of a hand given as `Hand`, text or packed int, checked against the
    rule set's deck (raises `RulesError`; `CardError` for a negative or bool int)."""
    if isinstance(hand, int) and (hand < 0 or isinstance(hand, bool)):
        raise CardError(f"packed cards are a non-negative int, not {hand!r}")
    bits = hand if isinstance(hand, int) else as_hand(hand).bits
    rules.check_hand(bits)
    return bits


def legal_moves(hand: Union[Hand, str], rules: Rules = STANDARD,
                to_beat: Optional[Move] = None) -> list[Move]:
    """Every move ``hand`` can lead (``to_beat`` None or pass), or every move that beats
    ``to_beat`` followed by `PASS`. ``rules`` may be a rule set's name, ``to_beat`` text."""
    if not isinstance(rules, Rules):
        rules = get_rules(rules)
    if to_beat is not None and not isinstance(to_beat, Move):
        if not isinstance(to_beat, str):
            raise IllegalCombinationError(f"to_beat is a Move or card text, not {to_beat!r}")
        to_beat = parse_move(to_beat, rules)
    if type(hand) is Hand:          # the common case, checked inline (this is a hot path)
        bits = hand.bits
        if ((rules.deck | GUARD_BITS) - bits) & GUARD_BITS != GUARD_BITS:
            rules.check_hand(bits)      # raises `RulesError` naming the extra cards
    else:
        bits = hand_bits(hand, rules)
    gen = generator(rules)
    if to_beat is None or to_beat.kind is Kind.PASS:
        return gen.leading(bits)
    if to_beat.kind not in rules.kinds:
        raise RulesError(f"{to_beat!r} is not a combination of the {rules.name} rules")
    return gen.following(bits, to_beat)


def check_move(move: Move, rules: Rules, what: str = "move") -> Move:
    """Raise `RulesError` unless ``move`` is a combination of ``rules`` (pass is fine)."""
    if not isinstance(move, Move):
        raise TypeError(f"expected a Move, not {type(move).__name__}")
    if move.kind == Kind.PASS:
        return move
    if move.kind not in rules.kinds:
        raise RulesError(f"{what} {move!r} is a {move.kind.label}, which the {rules.name} "
                         "rules do not have")
    rules.check_hand(move.cards, what)
    c = unpack(move.cards)
    gen = generator(rules)
    for leading in (True, False):
        if any(m == move for m in gen.collect(c, kind=move.kind, length=move.length,
                                               leading=leading)):
            break
    else:
        raise RulesError(f"{what} {move!r} is not a combination of the {rules.name} rules")
    return move


def split_reading(text: str) -> tuple[str, Optional[int]]:
    """Card text and the rank ``F`` is read as, from ``'45678F=9'`` (None without ``=``)."""
    if "=" not in text:
        return text, None
    cards, _, rank = text.rpartition("=")
    r = rank_of(rank.strip())
    if r not in range(RB) or r == R2:
        raise CardError(f"the flower card F cannot be read as {rank.strip()!r}: only 3..A")
    return cards, r


def readings(cards: Union[Hand, str, int], rules: Rules = STANDARD) -> list[Move]:
    """Every move these cards make when led, one per reading (several only with ``F``)."""
    if isinstance(cards, str):
        cards, _ = split_reading(cards)
    bits = hand_bits(cards, rules)
    if bits == 0:
        return [PASS]
    gen = generator(rules)
    if isinstance(gen, WildcardGenerator):
        return gen.readings(bits)
    size = bits_size(bits)
    return [m for m in gen.collect(unpack(bits), size=size) if m.cards == bits][:1]


def detect(cards: Union[Hand, str, int], rules: Rules = STANDARD,
           reading: Optional[int] = None) -> Optional[Move]:
    """The move these cards make when led (`PASS` for no cards), or None if they form no
    combination.

    With a flower card ``F`` the reading may be given (``reading=`` the rank F stands for,
    or text such as ``'45678F=9'``); cards with several readings and none given raise
    `AmbiguousMoveError` listing them.

    >>> detect("3333BR").kind.name, detect("33334444")
    ('FOUR_TWO_SOLO', None)
    >>> from ddzlab.rules import WILDCARD
    >>> str(detect("45678F=9", WILDCARD)), detect("333F=3", WILDCARD).kind.name
    ('45678F=9', 'SOFT_BOMB')
    """
    if not isinstance(rules, Rules):
        rules = get_rules(rules)
    if isinstance(cards, str):
        cards, given = split_reading(cards)
        reading = given if given is not None else reading
    bits = hand_bits(cards, rules)
    if bits == 0:
        return PASS
    gen = generator(rules)
    if not bits & _F_MASK:
        if reading is not None:
            raise CardError(f"a reading (={RANK_CHARS[reading]}) is given but "
                            f"{format_bits(bits)} holds no flower card F")
        if isinstance(gen, WildcardGenerator):
            gen = gen.natural
        size = bits_size(bits)
        for move in gen.collect(unpack(bits), size=size):
            if move.cards == bits:
                return move
        return None
    gen = cast(WildcardGenerator, gen)      # `hand_bits` refused F outside the wildcard rules
    found = gen.readings(bits)
    if reading is not None:
        read = bits - F_BIT + (1 << (4 * reading))
        found = [m for m in found if _read_as(m, read, reading, gen)]
    if len(found) > 1:
        raise AmbiguousMoveError(
            f"{format_bits(bits)} has {len(found)} readings: "
            + ", ".join(f"{m} ({m.kind.label} of {m.rank_char})" for m in found)
            + "; give one, e.g. " + str(found[-1]), tuple(found))
    return found[0] if found else None


def _read_as(m: Move, read: int, x: int, gen: "WildcardGenerator") -> bool:
    """Whether move ``m`` (with F) can be read with F as ``x`` (cards ``read``)."""
    if m.reading == x:
        return True
    kind = Kind.BOMB if m.kind == Kind.SOFT_BOMB else m.kind
    return any(n.cards == read for n in gen.natural.collect(unpack(read), kind, m.length, rank=m.rank,
                                                            size=m.size))


def parse_move(text: str, rules: Rules = STANDARD) -> Move:
    """Parse a move from text: a pass word (`PASS_WORDS`) or cards such as ``'33344458'``,
    with the flower card's reading when it has several (``'45678F=9'``).

    Raises `CardError` for unknown symbols or more copies than a deck has, `RulesError` for
    cards outside the rule set's deck, `IllegalCombinationError` when the cards form no
    combination or there are none, and its subclass `AmbiguousMoveError` (listing them) when
    they have several readings and none is given. This is the one parser of typed moves
    (`Game.play` uses it).
    """
    if not isinstance(rules, Rules):
        rules = get_rules(rules)
    if not isinstance(text, str):
        raise IllegalCombinationError(f"a move is card text such as 334 or 'pass', not {text!r}")
    if text.strip().lower() in PASS_WORDS:
        return PASS
    cards, reading = split_reading(text)
    bits = hand_bits(cards, rules)
    if bits == 0:
        raise IllegalCombinationError("no cards given: type cards such as 334 or 'pass'")
    move = detect(bits, rules, reading)
    if move is None:
        raise IllegalCombinationError(f"{text.strip()} is not a combination of the {rules.name} rules")
    return move


def find_move(moves: Iterable[Move], cards: Union[str, Hand, int]) -> Optional[Move]:
    """The move in ``moves`` that plays exactly these cards (None for none)."""
    bits = cards if isinstance(cards, int) else (
        0 if isinstance(cards, str) and cards.strip().lower() in PASS_WORDS
        else as_hand(cards).bits)
    for m in moves:
        if m.cards == bits:
            return m
    return None


__all__ = ["Move", "PASS", "PASS_WORDS", "Kind", "legal_moves", "detect", "parse_move", "find_move",
           "check_move", "MoveGenerator", "WildcardGenerator", "generator", "hand_bits", "readings", "split_reading",
           "ALL_BOMB_ORDER", "bomb_tiers"]

