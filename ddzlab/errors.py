"""Every error ddzlab raises on bad input: each is a `ValueError` whose message names the problem."""


class DdzError(ValueError):
    """Base class: input that does not describe a valid card, move, game action or file."""


class CardError(DdzError):
    """A card text or card count that does not describe cards of the deck."""


class RulesError(DdzError):
    """Cards or moves that the chosen rule set cannot hold (wrong deck, wrong hand size)."""


class IllegalCombinationError(DdzError):
    """Cards that do not form any combination of the rule set."""


class IllegalMoveError(DdzError):
    """A move that the rules forbid here: not in hand, does not beat, pass when leading..."""


class OutOfTurnError(IllegalMoveError):
    """An action by a seat whose turn it is not, or in the wrong phase of the game."""


class DealFileError(DdzError):
    """A deal file that cannot be read: bad syntax, wrong card counts, overlapping hands."""


class SeedError(DdzError):
    """A seed that cannot seed a random generator (a negative number, a float, text)."""


class ModelFileError(DdzError):
    """A saved model or table that is corrupt, truncated or made for something else."""


class SearchLimitError(DdzError):
    """An analysis input too large for its exact search (a hand power of 40 cards, an
    open-hand endgame of three 18-card hands, ...): refused up front, or when the search
    reaches its documented state budget, before it uses unbounded time or memory. The
    message names the limit; each search documents its own (``ddzlab.analysis``)."""


class AmbiguousMoveError(IllegalCombinationError):
    """Cards with several readings (the wildcard rules' flower card ``F``) given without one:
    the message lists the readings, e.g. ``45678F=8`` and ``45678F=9``."""

    def __init__(self, message: str, readings: tuple = ()) -> None:
        super().__init__(message)
        self.readings = readings
