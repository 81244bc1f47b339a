"""Notebook 07's soft-bomb study: the counting rule on hand-made tricks, and the replay is the
stored experiment's games (same results, same number of moves)."""
from ddzlab.cards import Hand
from ddzlab.experiments import load_games
from ddzlab.experiments.soft_bombs import replay_soft_bombs, soft_bomb_counts, soft_bomb_tasks
from ddzlab.moves import PASS, legal_moves
from ddzlab.rules import WILDCARD, Kind


def _move(cards: str, kind: Kind):
    return next(m for m in legal_moves(Hand(cards), WILDCARD) if m.kind is kind and m.size == len(cards))


SOFT, BOMB, ROCKET, SOLO = (_move("555F", Kind.SOFT_BOMB), _move("7777", Kind.BOMB),
                            _move("BR", Kind.ROCKET), _move("3", Kind.SOLO))


def test_a_soft_bomb_is_over_bombed_only_in_its_own_trick():
    assert soft_bomb_counts([]) == (0, 0)
    assert soft_bomb_counts([SOLO, SOFT, BOMB]) == (1, 1)
    assert soft_bomb_counts([SOFT, PASS, ROCKET]) == (1, 1)             # one pass does not end the trick
    assert soft_bomb_counts([SOFT, PASS, PASS, BOMB]) == (1, 0)         # a new trick: a lead, not an answer
    assert soft_bomb_counts([SOFT, BOMB, ROCKET]) == (1, 1)             # counted once
    assert soft_bomb_counts([SOFT, PASS, PASS, SOFT, PASS, BOMB]) == (2, 1)
    assert soft_bomb_counts([BOMB, ROCKET, SOLO]) == (0, 0)             # natural bombs are not soft


def test_the_replay_is_the_stored_experiments_games():
    games = load_games("07_wildcard")
    for task in soft_bomb_tasks(3):
        got = replay_soft_bombs(task)
        stored = games[(games.deal == task["deal"]) & (games.config == task["config"])
                       & (games.opponent == task["opponent"])].set_index("role")
        for role in ("landlord", "farmers"):
            assert got[f"won_{role}"] == stored.won[role]
            assert got[f"moves_{role}"] == stored.moves[role]
        assert 0 <= got["over_bombed"] <= got["soft_played"] and got["games_with_soft"] <= 2
