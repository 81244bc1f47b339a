"""Deals: who holds which cards before bidding, and the text files that store them.

A `Deal` is the starting position of one game: one packed hand per seat (in play order:
seat 1 plays after seat 0, seat 2 after seat 1) and the kitty (底牌), kept *separate* from
the hands. The game gives the kitty to whoever becomes landlord; in DouZero's evaluation
mode that is seat 0, so seat 0 then holds 20 cards.

File format (documented for users in ``data/deals/README.md``): one deal per line,
fields separated by ``|``::

    # rules: standard
    # anything after '#' is a comment; blank lines are ignored
    33456789TJQKA2222 | 3445566778899TTJJ | 34567889TJQQKKAAB | QKR

The last field is the kitty (may be empty for two-player deals); the fields before it are
the hands of seat 0, 1, 2. Cards use the `ddzlab.cards` notation, spaces inside a field are
ignored. The reader checks every line and raises `DealFileError` naming the line number.

>>> d = generate_deals(1, seed=0)[0]
>>> [len(h) for h in d.hand_list()], len(d.kitty_hand())
([17, 17, 17], 3)
>>> Deal.parse(d.to_text()) == d
True
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional, Union

import numpy as np

from .cards import N_SLOTS, SLOT_CHARS, Hand, bits_size, format_bits, pack, parse_counts, shuffled
from .config import DEALS_DIR
from .errors import CardError, DealFileError, RulesError, SeedError
from .rules import STANDARD, Rules, get_rules

SeedLike = Union[None, int, np.random.Generator, np.random.SeedSequence]


def as_rng(seed: SeedLike) -> np.random.Generator:
    """A numpy Generator from a seed, a SeedSequence or an existing Generator (returned as is)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, (bool, float, str)) or (isinstance(seed, (int, np.integer)) and seed < 0):
        raise SeedError(f"a seed is a whole number of at least 0 (or a SeedSequence), not {seed!r}")
    return np.random.default_rng(seed)


@dataclass(frozen=True)
class Deal:
    """One deal: ``hands[seat]`` packed cards per seat (play order) and the packed kitty."""
    hands: tuple[int, ...]
    kitty: int = 0

    @property
    def players(self) -> int:
        return len(self.hands)

    def hand(self, seat: int) -> Hand:
        return Hand.from_bits(self.hands[seat])

    def hand_list(self) -> list[Hand]:
        return [Hand.from_bits(b) for b in self.hands]

    def kitty_hand(self) -> Hand:
        return Hand.from_bits(self.kitty)

    def to_text(self) -> str:
        """One line of the deal file format (hands in seat order, kitty last)."""
        return " | ".join([format_bits(b) for b in self.hands] + [format_bits(self.kitty)])

    __str__ = to_text

    @classmethod
    def parse(cls, line: str, rules: Optional[Rules] = None, players: Optional[int] = None) -> "Deal":
        """Parse one line of a deal file; validate it against ``rules`` if given.

        Raises `DealFileError` (without a line number; `read_deals` adds it).
        """
        fields = [f.strip() for f in line.split("|")]
        if len(fields) < 3:
            raise DealFileError(f"expected at least 2 hands and a kitty separated by '|', "
                                f"got {len(fields)} field(s)")
        parts = []
        for i, text in enumerate(fields):
            what = "kitty" if i == len(fields) - 1 else f"seat {i} hand"
            try:
                parts.append(pack(parse_counts(text)))
            except CardError as e:
                raise DealFileError(f"{what}: {e}") from None
        deal = cls(tuple(parts[:-1]), parts[-1])
        if rules is not None:
            deal.validate(rules, players)
        return deal

    def validate(self, rules: Rules = STANDARD, players: Optional[int] = None) -> None:
        """Raise `DealFileError` unless the deal fits ``rules``.

        Checks the number of hands, -- for the rule set's own player count -- each hand's
        and the kitty's size, and that no rank appears more often than the deck holds it.
        """
        players = rules.players if players is None else players
        if len(self.hands) != players:
            raise DealFileError(f"expected {players} hands and a kitty, got {len(self.hands)} hands")
        if players == rules.players:
            for seat, b in enumerate(self.hands):
                if bits_size(b) != rules.hand_size:
                    raise DealFileError(f"seat {seat} hand has {bits_size(b)} cards, "
                                        f"the {rules.name} rules deal {rules.hand_size}")
            if bits_size(self.kitty) != rules.kitty_size:
                raise DealFileError(f"kitty has {bits_size(self.kitty)} cards, "
                                    f"the {rules.name} rules use {rules.kitty_size}")
        elif self.kitty:
            raise DealFileError(f"a {players}-player deal has no kitty")
        total = [0] * N_SLOTS   # the 15 ranks and the flower card F
        for b in (*self.hands, self.kitty):
            for r in range(N_SLOTS):
                total[r] += (b >> (4 * r)) & 15
        over = [f"{SLOT_CHARS[r]} x{total[r]} (deck has {(rules.deck >> (4 * r)) & 15})"
                for r in range(N_SLOTS) if total[r] > (rules.deck >> (4 * r)) & 15]
        if over:
            raise DealFileError(f"more copies than the {rules.name} deck holds: {', '.join(over)}")


def deal_cards(rules: Rules = STANDARD, rng: SeedLike = None, players: Optional[int] = None,
               hand_size: Optional[int] = None) -> Deal:
    """Shuffle the rule set's deck with ``rng`` and deal it.

    With the rule set's own player count every seat gets ``hand_size`` cards and the rest
    of the deck (``kitty_size`` cards) is the kitty; with another count (two-player 1v1)
    there is no kitty and the remaining cards stay undealt.
    """
    rng = as_rng(rng)
    rules = get_rules(rules)
    players = rules.players if players is None else players
    size = rules.hand_size if hand_size is None else hand_size
    if players * size > rules.deck_size:
        raise DealFileError(f"{players} hands of {size} cards do not fit the {rules.deck_size}-card deck")
    cards = shuffled(rules.deck, rng)
    hands = tuple(Hand.from_ranks(cards[i * size:(i + 1) * size]).bits for i in range(players))
    kitty = 0
    if players == rules.players and hand_size is None:
        kitty = Hand.from_ranks(cards[players * size:players * size + rules.kitty_size]).bits
    return Deal(hands, kitty)


def generate_deals(n: int, seed: SeedLike = 0, rules: Rules = STANDARD,
                   players: Optional[int] = None) -> list[Deal]:
    """``n`` random deals drawn from one generator seeded by ``seed`` (reproducible);
    ``rules`` may be a rule set's name."""
    rng = as_rng(seed)
    rules = get_rules(rules)
    return [deal_cards(rules, rng, players) for _ in range(n)]


def swap_flower(deal: Deal, rng: SeedLike = None) -> Deal:
    """The deal with the flower card exchanged for a random natural card of the other side:
    if F is with the landlord (seat 0 or the kitty, which seat 0 takes in research mode) it
    goes to a random card of the farmers' hands (seats 1, 2) and that card takes F's place;
    if a farmer holds F, it goes to a random card of seat 0's hand or the kitty. Every
    hand keeps its size. Notebook 07 plays each wildcard deal both ways, so the difference
    is what holding F (rather than that natural card) is worth to a side. Raises
    `DealFileError` for a deal without F or of another player count than three."""
    from .cards import F_BIT
    if deal.players != 3:
        raise DealFileError(f"swap_flower needs a three-player deal, got {deal.players} hands")
    places = [*deal.hands, deal.kitty]
    holder = next((i for i, b in enumerate(places) if b & F_BIT), None)
    if holder is None:
        raise DealFileError("swap_flower needs a deal with the flower card F")
    other = [1, 2] if holder in (0, 3) else [0, 3]
    cards = [(i, r) for i in other for r in Hand.from_bits(places[i]).ranks()]
    i, r = cards[int(as_rng(rng).integers(len(cards)))]
    places[holder] += (1 << (4 * r)) - F_BIT
    places[i] += F_BIT - (1 << (4 * r))
    return Deal(tuple(places[:3]), places[3])


def write_deals(path: Union[str, Path], deals: Iterable[Deal], rules: Rules = STANDARD,
                comment: str = "") -> Path:
    """Write deals in the text format, with a ``# rules:`` header (and optional comment)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"# rules: {rules.name}"]
    lines += [f"# {c}" for c in comment.splitlines()]
    lines += [d.to_text() for d in deals]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def parse_deals(text: str, rules: Union[Rules, str, None] = None, players: Optional[int] = None,
                source: str = "<text>") -> list[Deal]:
    """Parse the deal file format from a string (see the module docstring).

    ``rules`` defaults to the file's ``# rules: NAME`` header, else standard.
    """
    header_rules: Optional[Rules] = None
    deals: list[Deal] = []
    lines = text.splitlines()
    for no, raw in enumerate(lines, 1):
        body, _, comment = raw.partition("#")
        key, _, value = comment.partition(":")
        if not body.strip() and key.strip().lower() == "rules" and value.strip():
            try:
                header_rules = get_rules(value.strip())
            except RulesError as e:
                raise DealFileError(f"{source}, line {no}: {e}") from None
            continue
        if not body.strip():
            continue
        use = get_rules(rules) if rules is not None else (header_rules or STANDARD)
        try:
            deals.append(Deal.parse(body, use, players))
        except DealFileError as e:
            raise DealFileError(f"{source}, line {no}: {e}") from None
    return deals


def douzero_deals(path: Union[str, Path], rules: Union[Rules, str, None] = None) -> list[Deal]:
    """The deals of a DouZero evaluation file (``eval_data.pkl``), read by the restricted
    reader `ddzlab.evaldata.read_douzero_file` (no object in the file is ever built unless
    it is a list of card codes). Seat 0 is DouZero's landlord, holding its 20 cards less the
    three kitty cards, which form the kitty; seat 1 is landlord_down, seat 2 landlord_up."""
    from .evaldata import CODES, read_douzero_file
    use = get_rules(rules) if rules is not None else STANDARD
    if use.name != "standard":
        raise DealFileError(f"{path}: DouZero's deal files hold standard deals, not {use.name!r} ones")
    rank = {code: r for r, code in enumerate(CODES)}

    def bits(codes: list[int]) -> int:
        return Hand.from_ranks(rank[c] for c in codes).bits

    out = []
    for rec in read_douzero_file(path):
        kitty = bits(rec["three_landlord_cards"])
        deal = Deal((bits(rec["landlord"]) - kitty, bits(rec["landlord_down"]), bits(rec["landlord_up"])), kitty)
        deal.validate(use)
        out.append(deal)
    return out


def read_deals(path: Union[str, Path], rules: Union[Rules, str, None] = None,
               players: Optional[int] = None) -> list[Deal]:
    """Read and validate a deal file; a bad line raises `DealFileError` naming its number.

    A bare name such as ``"standard_1000"`` is looked up in `DEALS_DIR`. A file ending in
    ``.pkl`` is read as DouZero's evaluation deals (`douzero_deals`).
    """
    path = Path(path)
    if not path.exists() and not path.suffix and (DEALS_DIR / f"{path}.txt").exists():
        path = DEALS_DIR / f"{path}.txt"
    if path.suffix == ".pkl":
        return douzero_deals(path, rules)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise DealFileError(f"cannot read deal file {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise DealFileError(f"{path} is not a UTF-8 text file") from None
    deals = parse_deals(text, rules, players, source=str(path))
    if not deals:
        raise DealFileError(f"deal file {path} holds no deals")
    return deals


__all__ = ["Deal", "SeedLike", "as_rng", "deal_cards", "generate_deals", "swap_flower", "write_deals",
           "parse_deals", "read_deals", "douzero_deals"]
