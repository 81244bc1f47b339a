"""The stored search studies of notebooks 02 and 03 (`ddzlab.analysis.studies`), the deal
swap of notebook 07 (`ddzlab.deals.swap_flower`), the split-leading agent of notebook 03 and
the homework A*'s expansion budget."""
from __future__ import annotations

import gzip
import math

import numpy as np
import pytest

from ddzlab.agents import make_agent
from ddzlab.analysis import best_score, min_plays
from ddzlab.analysis.homework import BudgetExceeded, homework_astar
from ddzlab.analysis.studies import (StudyError, astar_tasks, compact_study, dfs_tasks, random_hands, read_study, run_study, solve_astar,
                                     solve_dfs, study_path, task_hand)
from ddzlab.arena import duel_games
from ddzlab.cards import F_BIT, Hand
from ddzlab.deals import generate_deals, swap_flower
from ddzlab.errors import DealFileError
from ddzlab.gzmembers import complete_members
from ddzlab.moves import parse_move
from ddzlab.rules import STANDARD, WILDCARD

GRID = (("sweep", "homework", (10, 12), ("zero", "ceil")), ("every_order", "homework", (10,), ("zero", "ceil")))


def test_a_study_resumes_where_it_stopped_and_never_solves_a_task_twice(tmp_path) -> None:
    tasks = astar_tasks(3, grid=GRID)
    calls = []

    def solve(task):
        calls.append(task)
        return solve_astar(task)

    first = run_study("s", tasks[:4], solve, folder=tmp_path, progress=False)
    assert len(first) == 4 and len(calls) == 4
    full = run_study("s", tasks, solve, folder=tmp_path, progress=False)
    assert len(full) == len(tasks) and len(calls) == len(tasks)          # only the missing ones
    again = run_study("s", tasks, solve, folder=tmp_path, progress=False)
    assert len(calls) == len(tasks) and again.equals(full)
    keys = ["search", "heuristic", "cards", "index"]
    assert not full.duplicated(keys).any()
    # a run killed in the middle of a write leaves a truncated member: it is dropped, the task redone
    raw = study_path("s", tmp_path).read_bytes()
    study_path("s", tmp_path).write_bytes(raw + gzip.compress(b"sweep,zero,homework,99,1,0,xx")[:-6])
    assert len(read_study("s", tmp_path)) == len(tasks)
    # compacting keeps the rows (the damaged tail dropped), shrinks the file, and a run appends after it
    before = read_study("s", tmp_path)
    size = study_path("s", tmp_path).stat().st_size
    saved = compact_study("s", tmp_path)
    assert saved > 0 and study_path("s", tmp_path).stat().st_size == size - saved
    assert read_study("s", tmp_path).equals(before)
    more = astar_tasks(4, grid=GRID)
    grown = run_study("s", more, solve, folder=tmp_path, progress=False)
    assert len(grown) == len(more) and grown.iloc[:len(before)].equals(before)
    assert len(calls) == len(more)              # only the new tasks were solved


def test_a_task_stored_twice_is_refused_until_compacted_with_dedupe(tmp_path) -> None:
    # two runs on the same tasks at once both append their row: the next run refuses the file
    tasks = astar_tasks(2, grid=GRID)[:3]
    run_study("s", tasks, solve_astar, folder=tmp_path, progress=False)
    path = study_path("s", tmp_path)
    raw = path.read_bytes()
    members = complete_members(raw)[0]
    path.write_bytes(raw + gzip.compress(members[-1]))          # the last task's row again
    assert len(read_study("s", tmp_path)) == 4
    before = path.read_bytes()
    with pytest.raises(StudyError, match="1 task.* twice.*dedupe="):
        run_study("s", tasks, solve_astar, folder=tmp_path, progress=False)
    assert path.read_bytes() == before                          # refused: nothing appended
    keys = list(tasks[0])
    compact_study("s", tmp_path, dedupe=keys)
    rows = read_study("s", tmp_path)
    assert len(rows) == 3 and not rows.duplicated(keys).any()
    assert run_study("s", tasks, solve_astar, folder=tmp_path, progress=False).equals(rows)


def test_stored_rows_are_what_the_searches_return(tmp_path) -> None:
    rows = run_study("s", astar_tasks(3, grid=GRID), solve_astar, folder=tmp_path, progress=False)
    for row in rows.to_dict("records"):
        hand = task_hand(row)
        assert str(hand) == row["hand"] and len(hand) == row["cards"]
        assert row["plays"] == min_plays(hand, "homework").plays
    # the same hands for every search, and the first k hands of a seed do not depend on how many are drawn
    assert rows.groupby(["cards", "index"]).hand.nunique().eq(1).all()
    assert str(task_hand({"cards": 12, "rules": "homework", "seed": 5, "index": 2})) == \
        str(random_hands(3, 12, "homework", 5)[2])
    ratio = rows.pivot_table(index=["search", "cards", "index"], columns="heuristic", values="expanded")
    assert (ratio["zero"] >= ratio["ceil"]).all()      # an admissible, consistent h never expands more here


def test_the_homework_astar_stops_at_its_budget() -> None:
    hand = random_hands(1, 16, "homework", seed=1)[0]
    full = homework_astar(hand, "homework", "zero", every_order=True)
    assert full.expanded > 50
    with pytest.raises(BudgetExceeded) as e:
        homework_astar(hand, "homework", "zero", every_order=True, max_expanded=50)
    assert e.value.expanded == 50
    assert homework_astar(hand, "homework", "zero", every_order=True, max_expanded=full.expanded + 1).plays == full.plays
    row = solve_astar({"search": "every_order", "heuristic": "zero", "rules": "homework", "cards": 16,
                       "seed": 1, "index": 0}, budget=50)
    assert row["finished"] == 0 and math.isnan(row["plays"]) and row["expanded"] == 50


def test_dfs_study_rows() -> None:
    tasks = dfs_tasks(cut_per_size=2, prune_per_size=2)
    for task in (tasks[0], tasks[-1]):
        row = solve_dfs(task)
        exact = best_score(task_hand(task), "homework").score
        assert row["exact"] == exact
        if task["search"] == "prune":
            assert row["value"] == exact and row["nodes_other"] >= row["nodes"]
        else:
            assert row["value"] <= exact


def test_swap_flower_gives_f_to_the_other_side_and_keeps_every_hand_size() -> None:
    rng = np.random.default_rng(0)
    for deal in generate_deals(200, seed=3, rules=WILDCARD):
        swapped = swap_flower(deal, rng)
        swapped.validate(WILDCARD)
        before = [*deal.hands, deal.kitty]
        after = [*swapped.hands, swapped.kitty]
        holder = [i for i, b in enumerate(before) if b & F_BIT][0]
        new = [i for i, b in enumerate(after) if b & F_BIT][0]
        assert (holder in (0, 3)) != (new in (0, 3))                 # landlord side <-> farmers
        changed = [i for i in range(4) if before[i] != after[i]]
        assert changed == sorted([holder, new])
        natural = after[holder] - before[holder] + F_BIT             # the card that took F's place
        r = (natural.bit_length() - 1) // 4
        assert natural == 1 << (4 * r) and r < 15                     # one natural card
        assert after[new] - before[new] == F_BIT - natural
    with pytest.raises(DealFileError):
        swap_flower(generate_deals(1, seed=0)[0], 0)


def test_split_lead_leads_from_the_split_it_is_told() -> None:
    from ddzlab.agents.split_lead import split_lead
    from ddzlab.widgets import leading_observation
    hand = Hand("5556678899JJJQQKA")
    leads = {}
    for split, search in (("fewest", min_plays), ("score", best_score)):
        lead, moves = split_lead(hand.bits, STANDARD, split)
        assert list(moves) == list(search(hand, STANDARD).moves)
        assert lead in moves and not lead.is_bomb
        assert lead == min((m for m in moves if not m.is_bomb), key=lambda m: (m.rank, -m.size, m.cards))
        agent = make_agent(f"split_lead:split={split}")
        assert agent.play(leading_observation(hand.bits, STANDARD)) == lead
        leads[split] = moves
    assert leads["fewest"] != leads["score"]            # a hand where the two splits differ
    with pytest.raises(ValueError):
        make_agent("split_lead:split=longest")
    games = duel_games("split_lead:split=score", "split_lead:split=fewest", 3, seed=0, progress=False)
    assert len(games) == 6


def test_split_lead_defaults_explanation_and_bombs() -> None:
    """Default split "fewest" and bombs at 4 cards (greedy's); the explanation is the split;
    a split of bombs only leads its lowest bomb, otherwise a bomb is never the lead (the
    the survivors of `make mutation MODULE=agents/split_lead`)."""
    from ddzlab.agents.split_lead import split_lead
    from ddzlab.widgets import leading_observation
    agent = make_agent("split_lead")
    assert agent.split == "fewest" and agent.name == "split_lead:split=fewest" and agent.bomb_when == 4
    hand = Hand("5556678899JJJQQKA")
    lead = agent.play(leading_observation(hand.bits, STANDARD))
    moves = min_plays(hand, STANDARD).moves
    assert agent.last_eval == {"split": " | ".join(map(str, moves))} and lead in moves
    assert split_lead(Hand("3333").bits, STANDARD, "fewest")[0] == parse_move("3333")
    assert split_lead(Hand("3333789TJ").bits, STANDARD, "fewest")[0] == parse_move("789TJ")   # split 3333 | 789TJ
    with pytest.raises(ValueError, match=r"^split_lead: split must be one of \('score', 'fewest'\), not 'longest'"):
        make_agent("split_lead:split=longest")
