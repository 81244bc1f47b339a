"""The study guessers of notebook 05: the noisy oracle (consistency, accuracy against an
independent simulation of its definition and the exact hypergeometric value at q = 0), the
policy guesser's partner handling and effective sample size, and the guesser names."""
from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from scipy.stats import hypergeom

from ddzlab.agents import make_agent
from ddzlab.agents.base import play_game
from ddzlab.agents.greedy import GreedyAgent
from ddzlab.agents.mcts import MCTSConfigError, make_guesser
from ddzlab.cards import N_SLOTS
from ddzlab.determinize import (DeterminizeError, NoisyOracleGuesser, PolicyGuesser, UniformGuesser,
                                determinize, guess_accuracy, partner_of)
from ddzlab.game import Game, Phase
from ddzlab.rules import MINI, STANDARD

from test_determinize import SETUPS, check_consistent, random_point


def oracle_world(game: Game, seat: int, q: float, rng) -> Game:
    guesser = NoisyOracleGuesser(q)
    guesser.see(game)
    return determinize(game.observation(seat), rng, guesser)


@settings(max_examples=60, deadline=None)
@given(setup=st.integers(0, len(SETUPS) - 1), seed=st.integers(0, 2**32 - 1),
       steps=st.integers(0, 80), seat=st.integers(0, 2), q=st.sampled_from([0.0, 0.3, 0.85, 1.0]),
       sample_seed=st.integers(0, 2**32 - 1))
def test_oracle_worlds_are_consistent(setup, seed, steps, seat, q, sample_seed):
    game = random_point(setup, seed, steps)
    seat %= game.players
    world = oracle_world(game, seat, q, sample_seed)
    check_consistent(game, seat, world)
    if q == 1.0:                                   # q = 1: the true deal itself
        assert world.hands == game.hands and guess_accuracy(game.observation(seat), game, world) == 1.0


def test_oracle_refuses_to_guess_blind_or_off_point():
    game = random_point(0, 4, 10)
    obs = game.observation(1)
    with pytest.raises(DeterminizeError):
        NoisyOracleGuesser(0.5).guess(obs, np.random.default_rng(0))
    g = NoisyOracleGuesser(0.5)
    g.see(game)
    game.play(game.legal_moves()[0])
    with pytest.raises(DeterminizeError):
        g.guess(game.observation(game.to_act), np.random.default_rng(0))
    with pytest.raises(DeterminizeError):
        NoisyOracleGuesser(1.2)


def simulated_accuracy(truth: dict[int, int], q: float, rng: random.Random) -> float:
    """The oracle's definition simulated card by card on labelled cards (no bit tricks):
    keep each card with its holder with probability q, deal the others uniformly into the
    free places, score the multiset overlap per holder as `guess_accuracy` does."""
    cards = [(h, r) for h, bits in truth.items() for r in range(N_SLOTS) for _ in range((bits >> (4 * r)) & 15)]
    keep = [rng.random() < q for _ in cards]
    loose = [c for c, k in zip(cards, keep) if not k]
    guess = Counter(c for c, k in zip(cards, keep) if k)
    ranks = [r for _, r in loose]
    rng.shuffle(ranks)
    free = Counter(h for h, _ in loose)            # each holder's places not taken by kept cards
    i = 0
    for h in sorted(free):
        for r in ranks[i:i + free[h]]:
            guess[(h, r)] += 1
        i += free[h]
    true = Counter(cards)
    return sum(min(n, guess[k]) for k, n in true.items()) / len(cards)


def exact_uniform_accuracy(truth: dict[int, int]) -> float:
    """E[accuracy] of a uniform deal: Σ over holders and ranks of E[min(t, X)], X the copies
    of the rank a holder of n cards draws, hypergeometric."""
    def count(bits: int, r: int) -> int:
        return (bits >> (4 * r)) & 15
    sizes = {h: sum(count(b, r) for r in range(N_SLOTS)) for h, b in truth.items()}
    total = sum(sizes.values())
    e = 0.0
    for h, bits in truth.items():
        for r in range(N_SLOTS):
            t = count(bits, r)
            if t:
                copies = sum(count(b, r) for b in truth.values())
                x = np.arange(0, copies + 1)
                e += float(np.sum(hypergeom(total, copies, sizes[h]).pmf(x) * np.minimum(x, t)))
    return e / total


@pytest.mark.parametrize("rules,steps", [(STANDARD, 6), (MINI, 10)])
def test_oracle_accuracy_matches_its_definition(rules, steps):
    game = Game(rules=rules, seed=11, landlord=0)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        moves = game.legal_moves()
        game.play(moves[int(rng.integers(len(moves)))])
    seat = game.to_act
    obs = game.observation(seat)
    g = NoisyOracleGuesser(0.0)
    g.see(game)
    truth = g.truth(obs)
    n = 1500
    ref = exact_uniform_accuracy(truth)
    for q in (0.0, 0.5, 0.85):
        acc = np.array([guess_accuracy(obs, game, oracle_world(game, seat, q, int(rng.integers(2**32))))
                        for _ in range(n)])
        sim_rng = random.Random(q)
        sim = np.array([simulated_accuracy(truth, q, sim_rng) for _ in range(n)])
        se = math.sqrt(acc.var() / n + sim.var() / n)
        assert abs(acc.mean() - sim.mean()) < 4 * se + 1e-9, (q, acc.mean(), sim.mean())
        # at least q of the cards are right on average, plus the uniform share of the rest
        assert acc.mean() > q + (1 - q) * 0.5 * ref - 4 * acc.std() / math.sqrt(n)
        if q == 0.0:                               # q = 0 is the uniform guesser, exactly
            assert abs(acc.mean() - ref) < 4 * acc.std() / math.sqrt(n), (acc.mean(), ref)


def test_exact_uniform_accuracy_is_right_on_a_tiny_case():
    # two holders, one card each, different ranks: the uniform deal is right with prob 1/2
    truth = {1: 1 << 0, 2: 1 << 4}
    assert exact_uniform_accuracy(truth) == pytest.approx(0.5)
    sim = np.mean([simulated_accuracy(truth, 0.0, random.Random(i)) for i in range(400)])
    assert 0.4 < sim < 0.6


def test_partner_of():
    game = Game(rules=STANDARD, seed=3, landlord=1)
    assert partner_of(game.observation(1)) is None
    assert partner_of(game.observation(0)) == 2 and partner_of(game.observation(2)) == 0
    assert partner_of(Game(rules=STANDARD, seed=3, players=2).observation(1)) is None


def test_policy_guesser_skips_the_partner_by_default():
    """A farmer's partner's plays get no behavioural likelihood unless asked: the policy is
    consulted only at the landlord's (opponent's) unforced plays with partner="skip", at
    the partner's too with partner="same"; the log-likelihood is the sum over those calls."""
    game = play_game(Game(rules=MINI, seed=7, landlord=0), [GreedyAgent()] * 3)
    for _ in range(4):
        game.undo()
    obs = game.observation(1)
    assert partner_of(obs) == 2
    hidden = UniformGuesser().guess(obs, np.random.default_rng(1))
    for partner, allowed in (("skip", {0}), ("same", {0, 2})):
        calls = []

        def half(o, calls=calls):
            calls.append(o.seat)
            return [0.5] * len(o.legal_moves)
        ll = PolicyGuesser(half, partner=partner).log_likelihood(obs, hidden)
        assert set(calls) <= allowed and 0 in calls
        assert ll == pytest.approx(len(calls) * math.log(0.5))
        if partner == "same":
            assert 2 in calls                       # the partner made unforced plays here
    with pytest.raises(DeterminizeError):
        PolicyGuesser(GreedyAgent(), partner="nobody")


def test_policy_guesser_reports_its_effective_sample_size():
    game = play_game(Game(rules=MINI, seed=5, landlord=0), [GreedyAgent()] * 3)
    for _ in range(3):
        game.undo()
    g = make_guesser("policy64")
    assert isinstance(g, PolicyGuesser) and g.candidates == 64 and g.partner == "skip"
    obs = game.observation(game.to_act)
    determinize(obs, 0, g)
    determinize(obs, 1, g)                         # same observation: the pool is reused
    assert len(g.ess_log) == 1 and 1 <= g.ess <= 64 and g.ess == g.ess_log[0]


def test_guesser_names():
    assert make_guesser("policy").candidates == 16
    assert make_guesser("policy256").candidates == 256
    assert make_guesser("oracle0.85").q == 0.85 and make_guesser("oracle1").q == 1.0
    for bad in ("oracle1.5", "policy0", "policyx", "magic"):
        with pytest.raises(MCTSConfigError):
            make_guesser(bad)


def test_oracle_search_agent_sees_the_deal_through_the_play_loop():
    agents = [make_agent("ismcts:iterations=20,guesser=oracle1", seed=0), GreedyAgent(), GreedyAgent()]
    game = play_game(Game(rules=MINI, seed=2, landlord=0), agents)
    assert game.phase is Phase.FINISHED
    with pytest.raises(DeterminizeError):         # without the true game it cannot guess
        fresh = Game(rules=MINI, seed=2, landlord=0)
        make_agent("ismcts:iterations=20,guesser=oracle1", seed=0).play(fresh.observation(0))


def test_accuracy_games_scores_the_configs_decisions_and_resumes(tmp_path):
    from ddzlab.deals import generate_deals
    from ddzlab.experiments.guessing import ACCURACY_COLUMNS, accuracy_games
    deals = generate_deals(2, seed=4, rules=MINI)
    path = tmp_path / "acc.csv.gz"
    df = accuracy_games("greedy", "random", deals, ["uniform", "policy", "oracle1.0", "oracle0.0"], rules="mini",
                        seed=1, samples=2, path=path)
    assert list(df.columns) == ACCURACY_COLUMNS and set(df.deal) == {0, 1}
    assert set(df[df.role == "landlord"].seat) == {0} and set(df[df.role == "farmers"].seat) <= {1, 2}
    assert (df[df.guesser == "oracle1.0"].accuracy == 1.0).all()
    assert df[df.guesser == "uniform"].ess.isna().all()
    pol = df[df.guesser == "policy"].ess
    assert ((pol >= 1 - 1e-9) & (pol <= 16 + 1e-9)).all()
    assert 0 < df[df.guesser == "uniform"].accuracy.mean() < 1
    again = accuracy_games("greedy", "random", deals, ["uniform", "policy", "oracle1.0", "oracle0.0"], rules="mini",
                           seed=1, samples=2, path=path)
    pd.testing.assert_frame_equal(again, df)
    fresh = accuracy_games("greedy", "random", deals[:1], ["uniform"], rules="mini", seed=1, samples=2)
    mine = df[(df.deal == 0) & (df.guesser == "uniform")].reset_index(drop=True)
    pd.testing.assert_frame_equal(fresh.reset_index(drop=True), mine, check_dtype=False)  # same games, same draws
    with pytest.raises(MCTSConfigError):
        accuracy_games("greedy", "random", deals, ["nonsense"], rules="mini")
    from ddzlab.experiments import ExperimentError
    with pytest.raises(ExperimentError, match="guessers"):          # a stored panel does not change its guessers
        accuracy_games("greedy", "random", deals, ["uniform", "policy"], rules="mini", seed=1, samples=2, path=path)


def test_accuracy_rows_of_another_kind_are_refused_by_name(tmp_path):
    from ddzlab.deals import generate_deals
    from ddzlab.experiments import ExperimentError
    from ddzlab.experiments.guessing import accuracy_games
    deals = generate_deals(1, seed=4, rules=MINI)
    other = tmp_path / "other.csv.gz"
    pd.DataFrame({"deal": [0], "score": [1.0]}).to_csv(other, index=False, compression="gzip")
    junk = tmp_path / "junk.csv.gz"
    junk.write_bytes(b"\x1f\x8b\x08not gzip at all")
    for path, why in ((other, "columns"), (junk, "not a file of accuracy rows")):
        with pytest.raises(ExperimentError, match=why):      # main: KeyError 'guesser', BadGzipFile
            accuracy_games("greedy", "random", deals, ["uniform"], rules="mini", path=path)
