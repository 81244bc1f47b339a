"""The move index: every move of a rule set, pass included, numbered once and for all.

A learning agent's `Discrete` action space needs a fixed number for each move. ddzlab derives
the list from its own move generator (`ddzlab.moves`), so it can never disagree with the
rules: every lead of the whole deck, plus every reply to the lowest lead of each (kind,
length), which adds the readings a set of cards has only when it follows (``333444555666``
leads as a chain of four trios and follows a three-trio plane as ``444555666`` carrying
``333``), keeping the moves a hand of the rule set can hold (20 cards standard, 12 mini).

The order is ``(kind, length, rank, cards)`` with `Kind` numbered as DouZero numbers its
move types, so index 0 is pass. The list is versioned: `INDEX_VERSION` and the SHA-256 of
its text (`MoveIndex.checksum`) are pinned in `CHECKSUMS`, and a test rebuilds both; a
change of the rules that moves any index must bump the version.

>>> ix = move_index("standard")
>>> len(ix), str(ix.moves[0]), ix.index_of("pass")
(26156, 'pass', 0)
>>> i = ix.index_of("33344458")
>>> ix.moves[i].kind.name, str(ix.move(i))
('PLANE_SOLO', '33344458')
>>> len(move_index("mini"))
1033
"""
from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Iterable, Union

import numpy as np

from ..errors import IllegalMoveError, RulesError
from ..moves import PASS, Move, generator, parse_move
from ..rules import Rules, get_rules

#: bumped whenever a rule change renumbers any move
INDEX_VERSION = 1
#: rule set -> (number of moves, SHA-256 of `MoveIndex.text`) of this version
CHECKSUMS = {
    "standard": (26156, "9bf4c9c609efe06759868f9fa7e600ed5d0f2a3b410d04569df9b2761fadda91"),
    "mini": (1033, "fd7464da19c7e8fb25f591e7cb67cdcbb73f4cd191ee3355459f6c202225ef7d"),
}


def _sort_key(m: Move) -> tuple[int, int, int, int]:
    return (int(m.kind), m.length, m.rank, m.cards)


class MoveIndex:
    """Every move of one rule set, numbered: ``moves[i]`` and ``index_of(move)`` invert
    each other. Build it with `move_index` (cached per rule set)."""

    def __init__(self, rules: Union[Rules, str]) -> None:
        rules = get_rules(rules)
        if rules.wildcard is not None or rules.players != 3:
            raise RulesError(f"the move index covers three-player rule sets without a flower card, "
                             f"not {rules.name!r}")
        self.rules = rules
        gen = generator(rules)
        most = rules.hand_size + rules.kitty_size
        leads = gen.leading(rules.deck)
        found = {m for m in leads if m.size <= most}
        lowest: dict[tuple, Move] = {}
        for m in leads:
            key = (m.kind, m.length)
            if key not in lowest or m.rank < lowest[key].rank:
                lowest[key] = m
        for m in lowest.values():
            found.update(r for r in gen.following(rules.deck, m) if r.size <= most)
        found.add(PASS)
        #: the moves in index order
        self.moves: tuple[Move, ...] = tuple(sorted(found, key=_sort_key))
        self._index = {m: i for i, m in enumerate(self.moves)}

    def __len__(self) -> int:
        return len(self.moves)

    def __contains__(self, move: object) -> bool:
        return move in self._index

    def index_of(self, move: Union[Move, str]) -> int:
        """The index of a move (a `Move`, or text such as ``'33344458'`` / ``'pass'``)."""
        if isinstance(move, str):
            move = parse_move(move, self.rules)
        try:
            return self._index[move]
        except KeyError:
            raise IllegalMoveError(f"{move!r} is not a move of the {self.rules.name} rules") from None

    def move(self, index: int) -> Move:
        """The move numbered ``index``."""
        if isinstance(index, (int, np.integer)) and 0 <= index < len(self.moves):
            return self.moves[index]
        raise IllegalMoveError(f"action {index!r} is not an index of the {self.rules.name} move index "
                               f"(0..{len(self.moves) - 1})")

    def indices(self, moves: Iterable[Move]) -> list[int]:
        """The indices of several moves (each must be in the index)."""
        index = self._index
        return [index[m] for m in moves]

    def mask(self, moves: Iterable[Move]) -> np.ndarray:
        """An int8 vector of `len(self)`: 1 at the index of each move given."""
        out = np.zeros(len(self.moves), np.int8)
        out[self.indices(moves)] = 1
        return out

    @property
    def text(self) -> str:
        """One line per move, ``index kind rank length cards``: what the checksum covers."""
        return "".join(f"{i} {m.kind.name} {m.rank} {m.length} {m}\n" for i, m in enumerate(self.moves))

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    def table(self):
        """The index as a DataFrame (index, move, kind, rank, length, cards)."""
        import pandas as pd
        return pd.DataFrame({"move": [str(m) for m in self.moves],
                             "kind": [m.kind.name for m in self.moves],
                             "rank": [m.rank_char for m in self.moves],
                             "length": [m.length for m in self.moves],
                             "cards": [m.size for m in self.moves]})


@lru_cache(maxsize=None)
def _cached(rules: Rules) -> MoveIndex:
    return MoveIndex(rules)


def move_index(rules: Union[Rules, str] = "standard") -> MoveIndex:
    """The `MoveIndex` of a rule set (``'standard'`` or ``'mini'``), built once per process."""
    return _cached(get_rules(rules))


__all__ = ["INDEX_VERSION", "CHECKSUMS", "MoveIndex", "move_index"]
