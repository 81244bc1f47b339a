"""ddzlab: a Dou Dizhu (斗地主) research lab.

One exact, fast rules engine (`cards`, `rules`, `moves`, `game`) under bidding, hand
analysis, search, learning and MCTS agents, an arena that measures them, a command line,
widgets and notebooks.
"""
from .cards import Hand
from .errors import (CardError, DdzError, DealFileError, IllegalCombinationError,
                     IllegalMoveError, ModelFileError, OutOfTurnError, RulesError)
from .moves import PASS, Move, detect, legal_moves, parse_move
from .rules import HOMEWORK, MINI, STANDARD, Kind, Rules, get_rules
from .deals import Deal
from .game import Game, Observation, Phase

__version__ = "0.1.0"

__all__ = ["Hand", "Move", "Game", "Observation", "Phase", "Deal", "PASS", "Kind", "Rules", "STANDARD", "MINI", "HOMEWORK", "get_rules",
           "legal_moves", "detect", "parse_move", "DdzError", "CardError", "RulesError",
           "IllegalCombinationError", "IllegalMoveError", "OutOfTurnError", "DealFileError",
           "ModelFileError"]
