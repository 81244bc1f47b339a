"""Deal files and the arena: sides swapped, WP/ADP on known outcomes, parallel = serial."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ddzlab.agents import RandomAgent
from ddzlab.arena import duel, duel_games, game_seed, mean_ci, summarize
from ddzlab.cards import Hand
from ddzlab.config import DEALS_DIR
from ddzlab.deals import Deal, generate_deals, parse_deals, read_deals, write_deals
from ddzlab.errors import DealFileError
from ddzlab.game import Game
from ddzlab.moves import PASS
from ddzlab.rules import MINI, STANDARD
from ddzlab.stats import wilson

# Seat 0 holds every card above T: the farmers (two 2-of-each-rank hands, no bomb, no
# rocket) can never beat it, so whoever is landlord wins whatever anyone plays.
SURE_WIN = "JJQQQQKKKKAAAA222 | 33445566778899TTJ | 33445566778899TTJ | 2BR"


class Bomber:
    """Leads bombs (and the rocket) first, then the smallest move: 5 bombs on SURE_WIN."""
    name = "bomber"

    def bid(self, obs):
        return 0

    def play(self, obs):
        moves = [m for m in obs.legal_moves if not m.is_pass]
        if not moves:
            return PASS
        return min(moves, key=lambda m: (not m.is_bomb, m.rank, m.size))


def test_deal_round_trip_and_committed_files(tmp_path):
    deals = generate_deals(25, seed=5)
    path = write_deals(tmp_path / "d.txt", deals, comment="test set\nsecond line")
    assert read_deals(path) == deals
    for d in deals:
        assert sum(d.hands) + d.kitty == STANDARD.deck
    std = read_deals("standard_1000")
    assert len(std) == 1000 and std == generate_deals(1000, seed=0)
    mini = read_deals(DEALS_DIR / "mini_200.txt")     # rules come from the header
    assert len(mini) == 200 and mini[:5] == generate_deals(5, seed=0, rules=MINI)
    assert all(sum(d.hands) + d.kitty == MINI.deck for d in mini)
    assert (DEALS_DIR / "README.md").exists()
    two = parse_deals("3345 | 4456 |", players=2)
    assert two == [Deal((Hand("3345").bits, Hand("4456").bits), 0)]


@pytest.mark.parametrize("line, problem", [
    ("333455788899TJJQA | 34577789TQKKA222B | 4456669TJQQKKAA2R", "seat 2 hand has 17|kitty"),
    ("333455788899TJJQZ | 34577789TQKKA222B | 4456669TJQQKKAA2R | 6TJ", "unknown card symbol 'Z'"),
    ("333455788899TJJQ | 34577789TQKKA222B | 4456669TJQQKKAA2R | 6TJA", "seat 0 hand has 16 cards"),
    ("333455788899TJJQA | 34577789TQKKA222B | 4456669TJQQKKAA2R | 6TJJ", "kitty has 4 cards"),
    ("333455788899TJJQA | 34577789TQKKA222B | 4456669TJQQKKAA2R | 6T3", "more copies.*3 x5"),
    ("333455788899TJJQA | 34577789TQKKA222B | 4456669TJQQKKAA2R | 6TBB", "2 copies of 'B'"),
    ("333455788899TJJQA 34577789TQKKA222B", "expected at least 2 hands"),
])
def test_deal_file_errors_name_line_and_problem(tmp_path, line, problem):
    good = generate_deals(2, seed=0)
    path = tmp_path / "bad.txt"
    path.write_text(f"# rules: standard\n{good[0]}\n\n# a comment\n{line}  # trailing\n{good[1]}\n")
    with pytest.raises(DealFileError, match=rf"bad.txt, line 5: .*({problem})"):
        read_deals(path)


def test_deal_file_other_errors(tmp_path):
    with pytest.raises(DealFileError, match="cannot read"):
        read_deals(tmp_path / "missing.txt")
    (tmp_path / "r.txt").write_text("# rules: chess\n")
    with pytest.raises(DealFileError, match="line 1: unknown rule set 'chess'"):
        read_deals(tmp_path / "r.txt")
    (tmp_path / "b.bin").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(DealFileError, match="not a UTF-8"):
        read_deals(tmp_path / "b.bin")
    # a standard deal is not a mini deal
    with pytest.raises(DealFileError, match="line 1"):
        parse_deals(str(generate_deals(1, seed=0)[0]), rules=MINI)


def test_sure_win_deal_is_what_the_test_assumes():
    deal = parse_deals(SURE_WIN)[0]
    for landlord_agent in (Bomber(), RandomAgent(0)):
        game = Game(deal, landlord=0)
        while not game.is_over:
            seat = game.to_act
            agent = landlord_agent if seat == 0 else RandomAgent(seat)
            game.play(agent.play(game.observation(seat)))
            if seat != 0:
                assert game.history[-1][1] is PASS
        assert game.landlord_won


def test_duel_swaps_sides_and_computes_wp_adp():
    deals = parse_deals("\n".join([SURE_WIN] * 3))
    games = duel_games("smallest", Bomber, deals, progress=False)
    assert list(games.a_landlord) == [True, False] * 3
    assert games.landlord_won.all()
    assert list(games.a_won) == [True, False] * 3
    assert list(games.bombs) == [0, 5] * 3           # smallest never bombs; bomber bombs 5x
    assert list(games.a_points) == [1, -32] * 3
    df = duel("smallest", Bomber, deals, progress=False)
    assert summarize(games).equals(df)
    assert list(df.index) == ["A landlord", "A farmers", "combined"]
    assert list(df.n) == [3, 3, 6]
    assert list(df.WP) == [1.0, 0.0, 0.5]
    assert list(df.ADP) == [1.0, -32.0, -15.5]
    assert df.loc["A landlord", "ADP_lo"] == df.loc["A landlord", "ADP_hi"] == 1.0   # no spread
    assert (df.loc["A landlord", "WP_lo"], df.loc["A landlord", "WP_hi"]) == wilson(3, 3)
    assert df.loc["A farmers", "WP_lo"] == 0.0 and df.loc["A landlord", "WP_hi"] == 1.0
    assert df.attrs["A"] == "smallest" and df.attrs["B"] == "Bomber" and df.attrs["deals"] == 3
    # B vs A mirrors A vs B
    rev = duel(Bomber, "smallest", deals, progress=False)
    assert rev.loc["A landlord", "WP"] == 1.0 and rev.loc["A landlord", "ADP"] == 32.0
    assert rev.loc["combined", "ADP"] == 15.5


def test_confidence_intervals():
    lo, hi = wilson(5, 10)
    assert math.isclose(lo, 0.2366, abs_tol=1e-4) and math.isclose(hi, 0.7634, abs_tol=1e-4)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    m, lo, hi = mean_ci(np.array([1.0, -1.0, 1.0, -1.0]))
    assert m == 0 and math.isclose(hi, 1.959964 * 1.1547005 / 2, rel_tol=1e-5) and lo == -hi


def test_results_do_not_depend_on_jobs_or_chunks():
    deals = generate_deals(12, seed=3)
    serial = duel_games("random", "smallest", deals, progress=False, seed=4)
    par = duel_games("random", "smallest", deals, progress=False, seed=4, n_jobs=2, chunk_size=5)
    assert serial.equals(par)
    other = duel_games("random", "smallest", deals, progress=False, seed=5)
    assert not serial.equals(other)               # the seed matters
    assert game_seed(4, 0, 0, 1) != game_seed(4, 0, 1, 1)


def _random_on_dask_worker(seed=None):
    """A random agent that fails unless it is built inside a dask worker."""
    from distributed import get_worker
    get_worker()
    return RandomAgent(seed)


def test_dask_local_cluster_equals_serial():
    import distributed     # part of the dev extra: a missing install must fail, not skip
    deals = read_deals("standard_1000")[:16]
    serial = duel("random", "smallest", deals, progress=False, seed=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        on_dask = duel(_random_on_dask_worker, "smallest", deals, backend="dask",
                       progress=False, seed=1)
    assert on_dask.equals(serial)
    with pytest.raises(ValueError):
        _random_on_dask_worker(0)        # proves the dask run really used the workers


class CountingSmallest:
    """A `smallest` agent factory that counts how many agents (one per seat per game) it built."""
    built = 0

    def __call__(self, seed=None):
        from ddzlab.agents import SmallestAgent
        CountingSmallest.built += 1
        return SmallestAgent()


def test_duel_resumes_from_its_results_file(tmp_path):
    deals = generate_deals(6, seed=4)
    full = duel_games("random", "smallest", deals, progress=False)
    path = tmp_path / "duel.csv"
    duel_games("random", "smallest", deals, progress=False, results=path)
    lines = path.read_text().splitlines()
    assert len(lines) == 1 + 12
    path.write_text("\n".join(lines[:1 + 8 + 1]) + "\n")    # "interrupted" after 4 deals and a half
    resumed = duel_games("random", "smallest", deals, progress=False, results=path)
    assert resumed.equals(full)
    # deals 4 and 5 were played again; the orphan half of deal 4 was dropped from the file
    assert len(path.read_text().splitlines()) == 1 + 8 + 4
    # nothing left to play: a rerun reads the file and builds no agent
    counter = CountingSmallest()
    CountingSmallest.built = 0
    path2 = tmp_path / "again.csv"
    first = duel_games("random", counter, deals[:2], progress=False, results=path2)
    assert CountingSmallest.built == 2 * 3
    again = duel_games("random", counter, deals[:2], progress=False, results=path2)
    assert CountingSmallest.built == 2 * 3 and again.equals(first)


def test_duel_results_file_of_another_duel_is_refused(tmp_path):
    from ddzlab.arena import DuelResultsError
    path = tmp_path / "duel.csv"
    duel_games("random", "smallest", generate_deals(2, seed=4), progress=False, results=path)
    with pytest.raises(DuelResultsError, match="another duel .*b='smallest'.*'random'"):
        duel_games("random", "random", generate_deals(2, seed=4), progress=False, results=path)
    with pytest.raises(DuelResultsError, match="seed"):
        duel_games("random", "smallest", 2, progress=False, results=path, seed=9)
    (tmp_path / "bad.csv").write_text("x,y\n1,2\n")
    with pytest.raises(DuelResultsError, match="not a duel results file"):
        duel_games("random", "smallest", 2, progress=False, results=tmp_path / "bad.csv")


def test_results_file_holds_exactly_the_deals_asked_for(tmp_path):
    from ddzlab.arena import DuelResultsError
    deals = generate_deals(5, seed=4)
    path = tmp_path / "duel.csv"
    duel_games("random", "smallest", deals[:3], progress=False, results=path)
    text = path.read_bytes()
    assert b"\r" not in text and text.count(b"\n") == 1 + 6          # one line end, LF only
    # fewer, more or other deals than the file's: refused (it used to override --deals)
    for other in (deals[:2], deals, generate_deals(3, seed=5)):
        with pytest.raises(DuelResultsError, match=r"another duel \(deals='3:"):
            duel_games("random", "smallest", other, progress=False, results=path)
    # a foreign value is printed plainly ('0'), not as np.int64(0)
    with pytest.raises(DuelResultsError, match=r"\(seed='0', this one has '1'\)"):
        duel_games("random", "smallest", deals[:3], progress=False, results=path, seed=1)
    assert len(duel_games("random", "smallest", deals[:3], progress=False, results=path)) == 6


def test_parallel_duel_saves_results_in_small_chunks(tmp_path, monkeypatch):
    import ddzlab.arena as arena
    seen = []
    real = arena.run_chunks

    def spy(func, chunks, n_jobs=1, backend=None):
        seen.extend(len(c) for c in chunks)
        return real(func, chunks, 1, None)          # run here: only the chunking is checked
    monkeypatch.setattr(arena, "run_chunks", spy)
    duel_games("random", "smallest", generate_deals(60, seed=1), n_jobs=2, progress=False,
               results=tmp_path / "d.csv")
    assert sum(seen) == 60 and max(seen) <= arena.MAX_CHUNK


def _duel_file(tmp_path, n=4):
    deals = generate_deals(n, seed=4)
    path = tmp_path / "duel.csv"
    full = duel_games("random", "smallest", deals, progress=False, results=path)
    return deals, path, full, path.read_text().splitlines()


def test_a_results_line_cut_by_a_crash_is_dropped_and_the_duel_resumes(tmp_path):
    deals, path, full, lines = _duel_file(tmp_path)
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:7])       # cut mid-row
    with pytest.warns(UserWarning, match="last line was cut short"):
        resumed = duel_games("random", "smallest", deals, progress=False, results=path)
    assert resumed.equals(full)
    assert path.read_text().splitlines() == lines        # deal 3 replayed once, not twice


@pytest.mark.parametrize("edit, problem", [
    (lambda c: c.__setitem__(0, "x"), r"duel.csv:3: deal='x' is not a number"),
    (lambda c: c.__setitem__(0, "99"), r"duel.csv:3: deal 99 is outside the 4 deals"),
    (lambda c: c.__setitem__(5, "nan"), r"duel.csv:3: a_points='nan' is not a number"),
    (lambda c: c.__setitem__(5, "1e308"), r"duel.csv:3: a_points='1e308' is not a number"),
    (lambda c: c.__setitem__(5, str(-int(c[5]))), r"duel.csv:3: a_points=.* is not ±2\^bombs"),
    (lambda c: c.__setitem__(3, str(c[3] != "True")), r"duel.csv:3: a_won=.* contradicts"),
    (lambda c: c.__setitem__(1, "yes"), r"duel.csv:3: a_landlord='yes' is not True or False"),
    (lambda c: c.__setitem__(6, "0"), r"duel.csv:3: bombs=.*, moves=0 cannot be"),
    (lambda c: c.__setitem__(4, "64"), r"duel.csv:3: bombs=64"),
    (lambda c: c.pop(), r"duel.csv:3: 11 fields, a duel results row has 12"),
])
def test_a_garbled_results_row_is_refused_with_its_line(tmp_path, edit, problem):
    from ddzlab.arena import DuelResultsError
    deals, path, full, lines = _duel_file(tmp_path)
    cells = lines[2].split(",")
    edit(cells)
    path.write_text("\n".join(lines[:2] + [",".join(cells)] + lines[3:]) + "\n")
    before = path.read_text()
    with pytest.raises(DuelResultsError, match=problem):
        duel_games("random", "smallest", deals, progress=False, results=path)
    assert path.read_text() == before                    # a refused file is left as it was


def test_a_duplicated_results_row_and_a_folder_are_refused(tmp_path):
    from ddzlab.arena import DuelResultsError
    deals, path, full, lines = _duel_file(tmp_path)
    path.write_text("\n".join(lines + [lines[3]]) + "\n")
    with pytest.raises(DuelResultsError, match=r"duel.csv:10: a second row of \{'deal': 1\}"):
        duel_games("random", "smallest", deals, progress=False, results=path)
    with pytest.raises(DuelResultsError, match="is a folder"):
        duel_games("random", "smallest", deals, progress=False, results=tmp_path)


def test_a_half_written_deal_is_not_recorded_twice(tmp_path):
    """A crash between the record and the results file leaves games of deals that are not
    complete in the results: the resumed run drops them from the record, then replays them,
    so each game is in the record once (the review found 4 copies after 3 reruns)."""
    from ddzlab.records import read_records
    deals = generate_deals(4, seed=4)
    path, rec = tmp_path / "duel.csv", tmp_path / "games.jsonl"
    duel_games("random", "smallest", deals, progress=False, results=path, record=rec)
    lines = path.read_text().splitlines()
    rec_lines = rec.read_text().splitlines()
    path.write_text("\n".join(lines[:1 + 5]) + "\n")            # deals 0, 1 and half of 2
    rec.write_text("\n".join(rec_lines) + "\n" + rec_lines[-1][:30])  # and a cut record line
    for _ in range(3):
        duel_games("random", "smallest", deals, progress=False, results=path, record=rec)
        header, games = read_records(rec)
        keys = sorted((g.extra["deal_no"], g.extra["half"]) for g in games)
        assert keys == [(d, h) for d in range(4) for h in (0, 1)]
        assert len(path.read_text().splitlines()) == 1 + 8
