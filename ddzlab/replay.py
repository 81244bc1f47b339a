"""A recorded game as text, step by step: what ``ddzlab replay FILE`` prints.

Every step of a `ddzlab.records.GameRecord` (bid or move) becomes one line: who acted, in
which role, what, the cards left, and the agent's own evaluation of that decision when the
record has one (`ddzlab.agents.base.Evaluating`). Before the first step and after every
trick the hands are shown: all of them, or only those one seat may see (``seat``), so a
student can follow a game from one player's chair.

>>> from ddzlab.agents import make_agent
>>> from ddzlab.game import Game
>>> from ddzlab.records import game_record, play_recorded, read_game, read_header_dict
>>> game, evals = play_recorded(Game(seed=3, landlord=0), [make_agent("greedy")] * 3)
>>> header = read_header_dict({"format": "ddzlab-game-record", "version": 1, "rules": "standard",
...                            "players": 3, "agents": ["greedy"], "seed": 3, "source": "doc"}, "doc")
>>> rec = read_game(game_record(game, ["greedy"] * 3, evals), header)
>>> lines = list(replay_lines(rec))
>>> lines[0].startswith("game 0: standard rules")
True
>>> any("landlord" in line and "q=" in line for line in lines)     # a move with its evaluation
True
"""
from __future__ import annotations

from typing import Any, Iterator, Optional, Sequence

from .game import Game
from .moves import Move
from .records import GameRecord


def eval_text(ev: Optional[dict], top: int = 4) -> str:
    """An agent's evaluation as one short line: ``rule=keep_lead value=31 top: 3334 31, 5 12``."""
    if not ev:
        return ""
    parts = []
    for key, value in ev.items():
        if isinstance(value, dict):
            items = list(value.items())
            shown = ", ".join(f"{k} {_num(v)}" for k, v in items[:top])
            parts.append(f"{key}: {shown}{' ...' if len(items) > top else ''}")
        else:
            parts.append(f"{key}={_num(value)}")
    return "  ".join(parts)


def _num(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _cards(game: Game, seat: int) -> str:
    text = str(game.hand(seat))
    return text if text else "(none)"


def _hands(game: Game, seat: Optional[int], names: Sequence[str]) -> Iterator[str]:
    for s in range(game.players):
        if seat is None or s == seat:
            yield f"    seat {s} ({names[s]}, {game.role(s)}): {_cards(game, s)}"
        else:
            yield f"    seat {s} ({names[s]}, {game.role(s)}): {game.sizes[s]} cards"


def summary_line(rec: GameRecord) -> str:
    """One line per game, for ``ddzlab replay FILE --list``."""
    result = (f"winner seat {rec.winner}, scores {list(rec.scores or ())}" if rec.finished else "unfinished")
    lord = "none" if rec.landlord is None else f"seat {rec.landlord}"
    return (f"game {rec.index}: {', '.join(rec.seats)}; landlord {lord}; {len(rec.moves)} moves; "
            f"{result}")


def replay_lines(rec: GameRecord, seat: Optional[int] = None) -> Iterator[str]:
    """The game ``rec`` as lines of text, one per step, hands shown at the start and after
    each trick: all of them, or with ``seat`` only that seat's (the others as card counts)."""
    names = list(rec.seats)
    game = rec.new_game()
    view = "all hands" if seat is None else f"seat {seat}'s view"
    auction = ("no bidding: seat %d is the landlord" % rec.fixed_landlord if rec.fixed_landlord is not None
               else "bidding from seat %d" % rec.first_bidder)
    yield f"game {rec.index}: {rec.rules.name} rules, {rec.players} players, {auction} ({view})"
    if game.kitty is not None:
        yield f"  kitty {game.kitty} (in the landlord's hand)"
    yield from _hands(game, seat, names)
    for kind, who, action, ev in rec.actions():
        note = eval_text(ev)
        if kind == "bid":
            assert isinstance(action, int)
            game.make_bid(action, who)
            said = f"bids {action}" if action else "passes"
            yield f"  seat {who} ({names[who]}) {said}" + (f"   [{note}]" if note else "")
            if game.landlord is not None:
                yield f"  seat {game.landlord} is the landlord (bid {game.bid}); kitty {game.kitty}"
                yield from _hands(game, seat, names)
            continue
        assert isinstance(action, Move)
        tricks_before = game.last_move is None
        game.play(action, who)
        what = "passes" if action.is_pass else f"plays {action} ({action.kind.label})"
        lead = "leads, " if tricks_before and not action.is_pass else ""
        yield (f"  seat {who} ({names[who]}, {game.role(who)}) {lead}{what}   [{game.sizes[who]} left]"
               + (f"   {note}" if note else ""))
        if game.last_move is None and not game.is_over:
            yield "  -- trick over"
            yield from _hands(game, seat, names)
    if rec.finished:
        side = ("" if game.landlord is None else
                " (the landlord wins)" if game.landlord_won else " (the farmers win)")
        yield (f"result: seat {rec.winner} went out first{side}; bombs {rec.bombs}, "
               f"multiplier x{rec.multiplier}; scores {list(rec.scores or ())}")
    else:
        yield "result: the game was not finished"


__all__ = ["replay_lines", "summary_line", "eval_text"]
