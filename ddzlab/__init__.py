"""ddzlab: a Dou Dizhu (斗地主) research lab.

One exact, fast rules engine (`cards`, `rules`, `moves`, `game`) under bidding, hand
analysis, search, learning and MCTS agents, an arena that measures them, a command line,
widgets and notebooks.

The names below are imported on first use (``from ddzlab import Hand`` works as usual), so
``ddzlab --version`` and ``ddzlab --help`` start without loading numpy or the engine.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: public name -> the module that defines it
_EXPORTS = {
    "Hand": "cards",
    **dict.fromkeys(("CardError", "DdzError", "DealFileError", "IllegalCombinationError",
                     "IllegalMoveError", "ModelFileError", "OutOfTurnError", "RulesError"), "errors"),
    **dict.fromkeys(("PASS", "Move", "detect", "legal_moves", "parse_move"), "moves"),
    **dict.fromkeys(("HOMEWORK", "MINI", "STANDARD", "Kind", "Rules", "get_rules"), "rules"),
    "Deal": "deals",
    **dict.fromkeys(("Game", "Observation", "Phase"), "game"),
}

if TYPE_CHECKING:       # for type checkers and editors: the same names, imported eagerly
    from .cards import Hand
    from .deals import Deal
    from .errors import (CardError, DdzError, DealFileError, IllegalCombinationError,
                         IllegalMoveError, ModelFileError, OutOfTurnError, RulesError)
    from .game import Game, Observation, Phase
    from .moves import PASS, Move, detect, legal_moves, parse_move
    from .rules import HOMEWORK, MINI, STANDARD, Kind, Rules, get_rules


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ddzlab' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = ["Hand", "Move", "Game", "Observation", "Phase", "Deal", "PASS", "Kind", "Rules", "STANDARD", "MINI",
           "HOMEWORK", "get_rules", "legal_moves", "detect", "parse_move", "DdzError", "CardError", "RulesError",
           "IllegalCombinationError", "IllegalMoveError", "OutOfTurnError", "DealFileError", "ModelFileError"]
