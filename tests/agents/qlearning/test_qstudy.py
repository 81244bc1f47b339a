"""The checkpoint study's trainer (`ddzlab.qstudy`, `ddzlab.qtraining`): order, resume, files, the
evaluation summary's interval."""
import math

import numpy as np
import pandas as pd
import pytest

from ddzlab import qstudy
from ddzlab.agents import make_agent
from ddzlab.agents.qlearning import QLearningAgent, QTables, tables
from ddzlab.errors import ModelFileError
from ddzlab.cli import main as cli_main
from ddzlab.qtraining import TrainConfig, train

CKPTS = (12, 30)


def _same(a: QTables, b: QTables) -> None:
    for which in (0, 1):
        np.testing.assert_array_equal(a.table(which), b.table(which))
        np.testing.assert_array_equal(a.visits(which), b.visits(which))


def test_plan_is_stage_by_stage():
    cells = qstudy.plan(["self", "split_random"], [0, 1], upto=2_500)
    assert cells == [(1_000, "self", 0), (1_000, "self", 1), (1_000, "split_random", 0),
                     (1_000, "split_random", 1), (2_500, "self", 0), (2_500, "self", 1),
                     (2_500, "split_random", 0), (2_500, "split_random", 1)]


def test_checkpoints_equal_uninterrupted_runs(tmp_path):
    root, work = tmp_path / "tables", tmp_path / "work"
    # first only the first stage, then the rest with the state file lost in between
    qstudy.train_study(["greedy_rulev1"], [3], upto=12, root=root, work=work,
                       checkpoints=CKPTS, checkpoint_every=5, progress=False, log=None)
    assert [p.name for p in root.glob("*.npz")] == ["greedy_rulev1-s3-12.npz"]
    assert list(qstudy.checkpoint_summary(root, write=False).games) == [12]
    (work / "greedy_rulev1-s3.npz").unlink()
    files = qstudy.train_study(["greedy_rulev1"], [3], root=root, work=work,
                               checkpoints=CKPTS, checkpoint_every=7, progress=False, log=None)
    assert [p.name for p in files] == ["greedy_rulev1-s3-12.npz", "greedy_rulev1-s3-30.npz"]
    for games, path in zip(CKPTS, files):
        direct = train(qstudy.study_config("greedy_rulev1", 3, games), progress=False).tables
        _same(QTables.load(path), direct)
        assert QTables.load(path).meta["games_done"] == games


def test_a_state_file_ahead_of_the_checkpoint_is_not_used(tmp_path):
    root, work = tmp_path / "tables", tmp_path / "work"
    # a state trained past the first checkpoint (another plan) must not become that checkpoint
    train(qstudy.study_config("split_random", 0, 20), work / "split_random-s0.npz",
          checkpoint_every=0, progress=False)
    (path,) = qstudy.train_study(["split_random"], [0], upto=12, root=root, work=work,
                                 checkpoints=CKPTS, progress=False, log=None)
    _same(QTables.load(path), train(qstudy.study_config("split_random", 0, 12),
                                    progress=False).tables)


def test_checkpoint_specs_build_the_agent(tmp_path, monkeypatch):
    assert qstudy.checkpoint_spec("self", 0, 0) == "qlearning_prior"
    assert qstudy.checkpoint_spec("self", 1, 12) == "qlearning:checkpoint=self-s1-12"
    qstudy.train_study(["self"], [1], upto=12, root=tmp_path, work=tmp_path / "w",
                       checkpoints=CKPTS, progress=False, log=None)
    spec = qstudy.checkpoint_spec("self", 1, 12, root=tmp_path)
    assert spec == f"qlearning:path={(tmp_path / 'self-s1-12.npz').as_posix()}"
    monkeypatch.setattr(tables, "CHECKPOINT_DIR", tmp_path)
    for s in (spec, "qlearning:checkpoint=self-s1-12"):
        agent = make_agent(s)
        assert isinstance(agent, QLearningAgent) and agent.tie == "prior"
        assert agent.min_visits == qstudy.VARIANT["min_visits"]
        assert agent.tables.meta["games_done"] == 12
    with pytest.raises(ModelFileError, match="ddzlab train qstudy"):
        make_agent("qlearning:checkpoint=self-s1-13")
    with pytest.raises(ModelFileError, match="give a name"):
        make_agent("qlearning:checkpoint=../self-s1-12")


def test_greedy_rulev1_opponents_are_checked_and_train():
    cfg = TrainConfig(games=6, seed=1, opponents="greedy_rulev1")
    res = train(cfg, progress=False)
    assert res.games_done == 6 and res.tables.lead_visits.sum() > 0
    with pytest.raises(ValueError, match="opponents"):
        TrainConfig(opponents="rulev1_only").check()


def test_cli_trains_the_study(tmp_path, capsys):
    rc = cli_main(["train", "qstudy", "--seeds", "2", "--checkpoints", "8,12", "--upto", "8",
                   "--opponents", "self", "--root", str(tmp_path), "--work", str(tmp_path / "w"),
                   "--no-progress"])
    assert rc == 0 and [p.name for p in tmp_path.glob("*.npz")] == ["self-s2-8.npz"]
    _same(QTables.load(tmp_path / "self-s2-8.npz"),
          train(qstudy.study_config("self", 2, 8), progress=False).tables)
    with pytest.raises(SystemExit):
        qstudy.main(["--opponents", "nobody"])
    assert qstudy._seeds("0-4") == [0, 1, 2, 3, 4] and qstudy._seeds("1,3") == [1, 3]


def test_protocol_study_pairs_players_on_the_same_games_and_resumes(tmp_path):
    path = tmp_path / "p.csv.gz"
    first = qstudy.protocol_study(runs=1, games=6, path=path, progress=False, training=30)
    assert len(first) == 6 * len(qstudy.PROTOCOL_PLAYERS)
    assert list(first.columns) == qstudy.PROTOCOL_COLUMNS
    both = qstudy.protocol_study(runs=2, games=6, path=path, progress=False, training=30)
    # run 0 is kept as it was, run 1 added on its own protocol seed
    pd.testing.assert_frame_equal(both[both.run == 0].reset_index(drop=True), first)
    assert set(both.protocol_seed) == {qstudy.protocol_seed(0), qstudy.protocol_seed(1)}
    for _, run in both.groupby("run"):
        games = [g.sort_values("game")[["game", "seat", "role"]].to_numpy().tolist()
                 for _, g in run.groupby("player")]
        assert games[0] == games[1] == games[2]          # the same deals, seats and bids
    pd.testing.assert_frame_equal(qstudy.read_protocol(path), both)
    assert len(qstudy.read_protocol(tmp_path / "none.csv.gz")) == 0
    # runs of another size are not mixed in: main appended 8-game runs to these 6-game ones
    with pytest.raises(qstudy.QStudyError, match=r"runs of \[6\] games per player, this call asks for 8"):
        qstudy.protocol_study(runs=3, games=8, path=path, progress=False, training=30)
    pd.testing.assert_frame_equal(qstudy.read_protocol(path), both)


def _rows(config, opponent, wins):
    """Game rows of ``config``: per deal, (landlord won, farmers won)."""
    out = []
    for deal, (lw, fw) in enumerate(wins):
        out.append((config, opponent, deal, "landlord", lw, 1 if lw else -1))
        out.append((config, opponent, deal, "farmers", fw, 1 if fw else -1))
    return out


def test_checkpoint_deltas_by_hand():
    # per-deal WP: prior 1, .5, 0; run 0: 1, 1, .5; run 1: .5, .5, 0
    rows = (_rows("prior", "greedy", [(1, 1), (1, 0), (0, 0)])
            + _rows("self-s0-10", "greedy", [(1, 1), (1, 1), (0, 1)])
            + _rows("self-s1-10", "greedy", [(1, 0), (0, 1), (0, 0)]))
    games = pd.DataFrame(rows, columns=["config", "opponent", "deal", "role", "won", "points"])
    # the prior listed twice (two stage experiments) counts once
    games = pd.concat([games, games[games.config == "prior"]], ignore_index=True)
    d = qstudy.checkpoint_deltas(games)
    assert len(d) == 1
    r = d.iloc[0]
    assert (r.train_opponent, r.games, r.opponent, r.runs, r.deals) == ("self", 10, "greedy", 2, 3)
    # Δ = [[0, .5, .5], [-.5, 0, 0]]: run means 1/3, -1/6; deal means -1/4, 1/4, 1/4
    assert r.delta == pytest.approx(1 / 12)
    # the run as the unit: a t over the two run means (1 df)
    se = (1 / 8 / 2) ** 0.5                       # var(run means) = 1/8, S = 2
    assert r.se == pytest.approx(se) and r.sd_run == pytest.approx(1 / 8 ** 0.5)
    assert r.hi - r.delta == pytest.approx(12.7062047 * se, rel=1e-6)   # t(0.975, 1 df)
    from scipy.stats import ttest_1samp
    assert r.p == pytest.approx(ttest_1samp([1 / 3, -1 / 6], 0).pvalue)
    # the deal as the unit: a paired t over the three deal means (2 df)
    assert r.p_deal == pytest.approx(ttest_1samp([-0.25, 0.25, 0.25], 0).pvalue)
    assert r.hi_deal - r.delta == pytest.approx(4.30265273 * (1 / 12 / 3) ** 0.5, rel=1e-6)
    assert r.wp_prior == pytest.approx(0.5) and r.wp == pytest.approx((2.5 + 1) / 6)
    assert r.p_holm == pytest.approx(r.p) and 0.5 < r.p < 1
    assert r.p_deal_holm == pytest.approx(r.p_deal)
    from ddzlab.stats import mde
    assert r.mde == pytest.approx(mde(r.sd_run, 2)) and r.mde > abs(r.delta)
    assert r.mde_deal == pytest.approx(mde((1 / 12) ** 0.5, 3))
    # run 0's Δ [0, .5, .5] and run 1's [-.5, 0, 0] both have SD sqrt(1/12) over deals
    assert r.sd_deal == pytest.approx((1 / 12) ** 0.5)


def test_checkpoint_deltas_one_run_and_holm_over_the_family():
    rows = (_rows("prior", "greedy", [(0, 0)] * 6) + _rows("prior", "rulev1", [(1, 1)] * 6)
            + _rows("self-s0-10", "greedy", [(1, 1)] * 5 + [(0, 1)])
            + _rows("self-s0-10", "rulev1", [(1, 1)] * 5 + [(0, 1)]))
    games = pd.DataFrame(rows, columns=["config", "opponent", "deal", "role", "won", "points"])
    d = qstudy.checkpoint_deltas(games).set_index("opponent")
    # one run: the paired t over deals; against greedy Δ = 1,1,1,1,1,.5
    x = np.array([1, 1, 1, 1, 1, 0.5])
    assert d.loc["greedy", "delta"] == pytest.approx(x.mean())
    assert d.loc["greedy", "se"] == pytest.approx(x.std(ddof=1) / 6 ** 0.5)
    assert d.loc["greedy", "runs"] == 1 and d.loc["greedy", "deals"] == 6
    assert d.loc["greedy", "p"] == d.loc["greedy", "p_deal"] and np.isnan(d.loc["greedy", "sd_run"])
    # against rulev1 Δ = 0,0,0,0,0,-.5
    assert d.loc["rulev1", "delta"] == pytest.approx(-0.5 / 6)
    from statsmodels.stats.multitest import multipletests
    assert list(d.p_holm) == pytest.approx(list(multipletests(d.p, method="holm")[1]))
    assert list(d.p_deal_holm) == pytest.approx(list(multipletests(d.p_deal, method="holm")[1]))


def test_protocol_contrasts_by_hand():
    rows = []
    # run 0: trained wins 3 of 4, random 1 of 4, prior 2 of 4; run 1: 2, 2, 4 of 4
    for run, wins in ((0, {"seed_2000": [1, 1, 1, 0], "split_random": [0, 1, 0, 0],
                           "qlearning_prior": [1, 0, 1, 0]}),
                      (1, {"seed_2000": [1, 0, 0, 1], "split_random": [0, 1, 1, 0],
                           "qlearning_prior": [1, 1, 1, 1]})):
        for player, w in wins.items():
            for g, won in enumerate(w):
                rows.append((run, 1000 + run, g, 0, "landlord", player, won, 0))
    df = pd.DataFrame(rows, columns=qstudy.PROTOCOL_COLUMNS)
    c = qstudy.protocol_contrasts(df, effect=0.025)
    row = c.loc["seed_2000 − split_random"]
    # run means of the paired differences: .5 and 0
    assert row.estimate == pytest.approx(0.25)
    assert row.hi - row.estimate == pytest.approx(12.7062047 * 0.25, rel=1e-6)   # sd .3536/√2
    assert row.paired_games == 8 and row.runs == 2
    assert c.loc["rate: split_random", "min"] == 0.25 and c.loc["rate: split_random", "max"] == 0.5
    assert c.loc["seed_2000 − qlearning_prior", "estimate"] == pytest.approx((0.25 - 0.5) / 2)
    runs = qstudy.protocol_runs(df)
    assert list(runs["seed_2000"]) == [0.75, 0.5] and list(runs["games"]) == [4, 4]


def test_bad_study_arguments_are_refused_not_read_as_nothing(tmp_path, capsys):
    # `--seeds 4-0` used to become no seeds: the command trained nothing and exited 0
    for argv in (["--seeds", "4-0"], ["--seeds", "x"], ["--seeds", "-1"], ["--checkpoints", "0,10"],
                 ["--checkpoints", "a"], ["--protocol", "-1"], ["--protocol-games", "0"], ["--upto", "0"]):
        with pytest.raises(SystemExit) as e:
            qstudy.main(argv + ["--root", str(tmp_path), "--no-progress"])
        assert e.value.code == 2
        assert f"{argv[0]}: " in capsys.readouterr().err
    with pytest.raises(qstudy.QStudyError, match="nothing to train"):
        qstudy.train_study(["self"], [0], upto=5, root=tmp_path, work=tmp_path / "w", checkpoints=(8, 12),
                           progress=False, log=None)
    assert qstudy.main(["--upto", "5", "--checkpoints", "8,12", "--root", str(tmp_path),
                        "--work", str(tmp_path / "w"), "--no-progress"]) == 2
    assert "nothing to train" in capsys.readouterr().out
    assert not list(tmp_path.glob("*.npz"))
    assert qstudy._seeds("3") == [3] and qstudy._checkpoint_list("12,8,12") == [8, 12]


def test_qlearning_agent_option_errors_are_agent_errors():
    from ddzlab.agents.base import AgentError
    from ddzlab.agents.qlearning import SparseTables
    with pytest.raises(AgentError, match="one of tables, path and checkpoint"):
        QLearningAgent(tables=SparseTables.empty(), checkpoint="self-s0-12")
    with pytest.raises(AgentError, match="tie='never'"):
        QLearningAgent(tables=SparseTables.empty(), tie="never")


def test_eval_summary_adp_interval_is_1_96_sd_over_root_n():
    """ADP ± 1.96·s/√n with the sample standard deviation: points 1, -1, 2, -2, 4 have
    mean 0.8, s² = (0.04+3.24+1.44+7.84+10.24)/4 = 5.7, half-width 1.96·√5.7/√5."""
    from ddzlab.qtraining import eval_summary
    df = pd.DataFrame({"landlord": [True, True, False, False, True],
                       "won": [True, False, True, False, True], "points": [1, -1, 2, -2, 4]})
    out = eval_summary(df)
    half = 1.96 * math.sqrt(5.7) / math.sqrt(5)
    assert out["adp_combined"] == pytest.approx(0.8)
    assert out["adp_combined_lo"] == pytest.approx(0.8 - half, abs=1e-12)
    assert out["adp_combined_hi"] == pytest.approx(0.8 + half, abs=1e-12)
    assert out["wp_combined"] == pytest.approx(3 / 5) and out["wp_landlord"] == pytest.approx(2 / 3)


def test_delta_text_cites_a_row_with_signed_values_and_thousands_separators():
    from collections import namedtuple
    Row = namedtuple("Row", "train_opponent games opponent delta lo hi runs deals")
    row = Row("self", 20_000, "greedy", -0.01234, -0.05, 0.02549, 5, 1000)
    assert qstudy.delta_text(row) == "self 20,000 vs greedy: -0.012 [-0.050, +0.025] (5 runs, 1,000 deals)"
