"""``ddzlab train weights`` against its definitions (the survivors of
`make mutation MODULE=agents/weights_train`).

The module docstring is the specification: `win_rate` plays every deal twice from seat 0 as
landlord (the weights agent as landlord, then as both farmers) against an opponent seeded
``SeedSequence([seed, deal, half])``; `perturb` redraws ``k`` distinct weights from `SPACE`;
`tune` scores the defaults and the perturbations on the search deals (mean WP over the
opponents), replays the best and the defaults on the validation deals and keeps the best only
if it is strictly better there. The games are replaced by scripted outcomes where the test is
about the counting, so every number below is worked out by hand.
"""
from __future__ import annotations

import dataclasses
import json
import re
from types import SimpleNamespace

import numpy as np
import pytest

import ddzlab.agents.weights_train as wt
from ddzlab.agents import make_agent, play_game
from ddzlab.agents.weights import WEIGHTS_FORMAT, WEIGHTS_VERSION, RuleWeights, WeightsAgent, describe
from ddzlab.deals import generate_deals
from ddzlab.game import Game, Phase

W = dataclasses.replace(RuleWeights(), urgent_cards=2, bomb_threat=7)     # not the defaults


class Opponent:
    """A stand-in opponent that remembers the spec and seed it was made with."""

    def __init__(self, spec, seed=None):
        self.spec, self.seed = spec, seed


def scripted(monkeypatch, outcomes):
    """Replace the games: the k-th game played is won by the landlord iff ``outcomes[k]``;
    returns the list of (game, seats) handed to play_game."""
    seen = []

    def fake_play(game, seats):
        seen.append((game, seats))
        return SimpleNamespace(landlord_won=outcomes[len(seen) - 1])

    monkeypatch.setattr(wt, "play_game", fake_play)
    monkeypatch.setattr(wt, "make_agent", lambda spec, seed=None: Opponent(spec, seed))
    return seen


def test_win_rate_counts_the_weights_side_s_wins_over_both_halves_of_every_deal(monkeypatch):
    deals = wt.training_deals(3, seed=5)
    # landlord wins: deal 0 both games, deal 1 neither, deal 2 only the first
    seen = scripted(monkeypatch, [True, True, False, False, True, False])
    # weights wins as landlord in games 0, 4 and as the farmers in games 3, 5: 4 of 6
    assert wt.win_rate(W, "someone", deals, seed=7) == 4 / 6
    assert len(seen) == 6
    for k, (game, seats) in enumerate(seen):
        i, half = divmod(k, 2)
        assert game.deal == deals[i] and game.landlord == 0 and game.phase is Phase.PLAY
        ours, theirs = (seats[0], seats[1]) if half == 0 else (seats[1], seats[0])
        assert isinstance(ours, WeightsAgent) and ours.w == W
        assert isinstance(theirs, Opponent) and theirs.spec == "someone"
        assert theirs.seed.entropy == [7, i, half]
        assert (seats[1] is seats[2]) and (seats[0] is not seats[1])   # one agent holds both farmer seats
    seen0 = scripted(monkeypatch, [False] * 6)
    assert wt.win_rate(W, "someone", deals) == 3 / 6     # the farmer games only; the default seed is 0
    assert [(seats[1] if k % 2 == 0 else seats[0]).seed.entropy for k, (_, seats) in enumerate(seen0)] == \
        [[0, k // 2, k % 2] for k in range(6)]


def test_win_rate_on_real_games_is_the_share_won_by_the_weights_side():
    deals = generate_deals(3, seed=11)
    won = []
    for i, deal in enumerate(deals):
        for lord_is_ours, half in ((True, 0), (False, 1)):
            opponent = make_agent("random", seed=np.random.SeedSequence([2, i, half]))
            ours = WeightsAgent(W)
            seats = [ours, opponent, opponent] if lord_is_ours else [opponent, ours, ours]
            game = play_game(Game(deal, landlord=0), seats)
            won.append(game.landlord_won == lord_is_ours)
    assert wt.win_rate(W, "random", deals, seed=2) == sum(won) / 6


def test_training_deals_come_from_their_own_seed_stream():
    assert wt.training_deals(2) == wt.training_deals(2, seed=0)
    for seed, part in ((0, 0), (3, 1)):
        expected = generate_deals(2, seed=np.random.SeedSequence([seed, wt.TRAIN_TAG, part]))
        assert wt.training_deals(2, seed, part) == expected


def test_perturb_redraws_k_distinct_weights_from_the_space(monkeypatch):
    calls = []

    def recording(name, sampler):
        def draw(g, v):
            value = sampler(g, v)
            calls[-1][name] = value
            return value
        return draw

    monkeypatch.setattr(wt, "SPACE", {n: recording(n, f) for n, f in wt.SPACE.items()})
    rng = np.random.default_rng(0)
    for _ in range(60):
        calls.append({})
        out = wt.perturb(W, rng)
        drawn = calls[-1]
        assert len(drawn) == 3                      # three distinct weights a perturbation
        for name in wt.SPACE:
            assert getattr(out, name) == drawn.get(name, getattr(W, name))
    for k in (1, 5, 40):
        calls.append({})
        wt.perturb(W, rng, k=k)
        assert len(calls[-1]) == min(k, len(wt.SPACE))


def fake_scores(table, seen, search):
    """win_rate replaced: WP = table[(the weights, "search" on the deals ``search``, else
    "valid")] (0.1 if not listed) plus a per-opponent offset (0 against "a", 0.2 against "b"),
    and every call remembered."""
    def fake(w, opponent, deals, seed=0):
        seen.append((w, opponent, deals, seed))
        part = "search" if deals == search else "valid"
        return table.get((repr(w), part), 0.1) + {"a": 0.0, "b": 0.2}[opponent]
    return fake


@pytest.mark.parametrize("valid_best, valid_start, keep", [(0.6, 0.5, "best"), (0.5, 0.5, "start"),
                                                          (0.4, 0.5, "start")])
def test_tune_keeps_the_best_candidate_only_if_it_is_strictly_better_on_the_validation_deals(
        monkeypatch, valid_best, valid_start, keep):
    seed, n, candidates = 3, 2, 5
    rng = np.random.default_rng(np.random.SeedSequence([seed, wt.TRAIN_TAG, 2]))
    pool = [W] + [wt.perturb(W, rng) for _ in range(candidates)]
    best = pool[3]                                  # the search's winner (any candidate but the first)
    assert best != W
    search = wt.training_deals(n, seed, 0)
    table = {(repr(W), "search"): 0.3, (repr(best), "search"): 0.7,
             (repr(W), "valid"): valid_start, (repr(best), "valid"): valid_best}
    seen = []
    monkeypatch.setattr(wt, "win_rate", fake_scores(table, seen, search))
    res = wt.tune(n, candidates, seed, opponents=("a", "b"), start=W, progress=False)
    expected_trials = [(dataclasses.asdict(w), table.get((repr(w), "search"), 0.1) + 0.1) for w in pool]
    assert [w for w, _ in res["trials"]] == [w for w, _ in expected_trials]
    assert [s for _, s in res["trials"]] == pytest.approx([s for _, s in expected_trials])
    first_max = max(res["trials"], key=lambda t: t[1])
    assert first_max[0] == dataclasses.asdict(best)
    assert res["search_score"] == first_max[1] == pytest.approx(table[(repr(best), "search")] + 0.1)
    assert res["validation_best"] == pytest.approx(valid_best + 0.1)
    assert res["validation_start"] == pytest.approx(valid_start + 0.1)
    assert res["weights"] == (RuleWeights.from_dict(first_max[0]) if keep == "best" else W)
    assert set(res) == {"weights", "search_score", "validation_best", "validation_start", "trials"}
    # every candidate against both opponents on the search deals, then the two on the validation deals
    valid = wt.training_deals(n, seed, 1)
    assert [(o, d, s) for _, o, d, s in seen] == \
        [(o, search, seed) for _ in pool for o in ("a", "b")] + [(o, valid, seed) for _ in (0, 1) for o in ("a", "b")]
    assert [w for w, *_ in seen[-4:]] == [RuleWeights.from_dict(first_max[0])] * 2 + [W] * 2


def test_tune_s_defaults_and_progress_bar(monkeypatch, capsys):
    made = []
    monkeypatch.setattr(wt, "training_deals", lambda n, seed=0, part=0: made.append((n, seed, part)) or [part])
    seen = []
    monkeypatch.setattr(wt, "win_rate", lambda w, o, deals, seed=0: seen.append((w, o, seed)) or 0.5)
    res = wt.tune()
    assert made == [(200, 0, 0), (200, 0, 1)]
    assert len(res["trials"]) == 17 and res["trials"][0][0] == dataclasses.asdict(RuleWeights())
    assert {o for _, o, _ in seen} == {"greedy"} and {s for *_, s in seen} == {0}
    assert res["weights"] == RuleWeights()          # all tie: the defaults stay
    err = capsys.readouterr().err
    assert re.search(r"(^|\r)weights search: 100%\|.*\| 17/17 \[.*(candidate/s|s/candidate)\]", err), err
    wt.tune(progress=False)
    assert capsys.readouterr().err == ""


def stub_tune(monkeypatch, calls):
    def fake(deals, candidates, seed, opponents):
        calls.append((deals, candidates, seed, opponents))
        return {"weights": W, "search_score": 0.625, "validation_best": 0.5625, "validation_start": 0.5,
                "trials": [[{"x": 1}, 0.625]]}
    monkeypatch.setattr(wt, "tune", fake)


def test_the_command_s_defaults_file_and_message(monkeypatch, tmp_path, capsys):
    calls = []
    stub_tune(monkeypatch, calls)
    monkeypatch.chdir(tmp_path)
    clock = iter([10.0, 12.345])                  # the search "takes" 2.345 s
    monkeypatch.setattr(wt, "time", SimpleNamespace(perf_counter=lambda: next(clock)))
    assert wt.train_weights([]) == 0
    assert calls == [(200, 16, 0, ["greedy"])]
    text = (tmp_path / "weights.json").read_text()
    data = json.loads(text)
    assert text == json.dumps(data, indent=1) + "\n"      # one entry a line, as the shipped file: diffs line by line
    meta = data.pop("_meta")
    assert data["format"] == WEIGHTS_FORMAT and data.pop("version") == WEIGHTS_VERSION
    assert RuleWeights.from_dict(data) == W and set(data) == {"format", *dataclasses.asdict(W)}
    assert meta.pop("seconds") == 2.3                # rounded to a tenth
    assert meta == {"command": "ddzlab train weights ", "search_score": 0.625, "validation_best": 0.5625,
                    "validation_start": 0.5, "opponents": ["greedy"], "trials": [[{"x": 1}, 0.625]]}
    assert capsys.readouterr().out == (
        f"search WP 0.625; validation: best 0.562, start 0.500\n{describe(W)}\n"
        "saved weights.json; play it with the agent spec weights:weights=weights.json\n")
    monkeypatch.setattr(wt, "time", SimpleNamespace(perf_counter=lambda: 0.0))
    argv = ["--deals", "3", "--candidates", "2", "--seed", "9", "--vs", " greedy , smallest,,", "--out", "x.json"]
    assert wt.train_weights(argv) == 0
    assert calls[-1] == (3, 2, 9, ["greedy", "smallest"])
    meta = json.loads((tmp_path / "x.json").read_text())["_meta"]
    assert meta["command"] == "ddzlab train weights " + " ".join(argv) and meta["opponents"] == ["greedy", "smallest"]


def test_the_command_s_help_and_refusals(monkeypatch, tmp_path, capsys):
    calls = []
    stub_tune(monkeypatch, calls)
    with pytest.raises(SystemExit):
        wt.train_weights(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert out.startswith("usage: ddzlab train weights [-h]")
    assert wt.__doc__.split("\n")[0] in out and "The search plays" not in out
    for words in ("--deals DEALS training deals per half (search, validation) --candidates",
                  "--vs VS comma-separated opponents (agent specs) --out",
                  "--out OUT where to write the tuned weights (default weights.json here); play them with the agent "
                  "spec weights:weights=FILE --replace-shipped",
                  "--replace-shipped allow --out to be the shipped weights_tuned.json, which every `weights` agent "
                  "loads"):
        assert words in out, words
    assert out.endswith("every `weights` agent loads")
    for bad, message in ((["--deals", "0"], "argument --deals: must be at least 1, not 0"),
                         (["--candidates", "-2"], "argument --candidates: must be at least 1, not -2"),
                         (["--deals", "x"], "argument --deals: invalid _positive value: 'x'"),
                         (["--out", str(tmp_path)], f"--out {tmp_path}: not a file in an existing folder"),
                         (["--out", str(tmp_path / "no" / "w.json")], "not a file in an existing folder"),
                         (["--vs", "greedy,nosuch", "--out", str(tmp_path / "w.json")], "nosuch")):
        with pytest.raises((SystemExit, ValueError)) as exc:
            wt.train_weights(bad)
        assert getattr(exc.value, "code", 2) == 2
        said = capsys.readouterr().err + str(exc.value)
        assert message in said, (bad, said)
    assert calls == [] and not (tmp_path / "w.json").exists()        # nothing searched, nothing written
    assert wt._positive("1") == 1


def test_the_shipped_file_is_replaced_only_on_request(monkeypatch, tmp_path, capsys):
    shipped = tmp_path / "weights_tuned.json"
    shipped.write_text("{}")
    monkeypatch.setattr(wt, "TUNED_FILE", shipped)
    stub_tune(monkeypatch, [])
    with pytest.raises(SystemExit) as exc:
        wt.train_weights(["--out", str(shipped)])
    assert exc.value.code == 2 and shipped.read_text() == "{}"
    err = " ".join(capsys.readouterr().err.split())
    assert re.search(rf"--out {re.escape(str(shipped))} is the shipped weights file that every `weights` agent "
                     r"loads; write elsewhere, or add --replace-shipped to change it on purpose", err)
    assert wt.train_weights(["--out", str(shipped), "--replace-shipped"]) == 0
    assert json.loads(shipped.read_text())["format"] == WEIGHTS_FORMAT
