"""The compiled core's pool and oracle guessing (`ddzlab.search.sample`): the worlds it deals
follow the Python guessers' distributions, and the search agents run those guessers compiled
with the values of the Python loops."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ddzlab.agents import make_agent
from ddzlab.agents.greedy import GreedyAgent
from ddzlab.agents.mcts import MCTSConfigError, make_guesser
from ddzlab.deals import generate_deals
from ddzlab.determinize import (DeterminizeError, NoisyOracleGuesser, PolicyGuesser, UniformGuesser, hidden_sizes,
                                known_cards)
from ddzlab.game import Game
from ddzlab.cards import F_BIT
from ddzlab.rules import MINI, STANDARD, WILDCARD
from ddzlab.search import view_of
from ddzlab.search.likelihood import PosteriorGuesser, greedy_log_likelihoods
from ddzlab.search.sample import sample_world
from ddzlab.search.state import N_STATE, S_HAND, size_of
from ddzlab.search.tree import seed as seed_core

from compiled_check import CoreOrderGreedy
from conftest import mean_root_value, random_position as _point


def _accuracy(truth: dict[int, int], hands: dict[int, int]) -> float:
    """Share of the hidden cards a world's holders hold as in ``truth`` (multiset overlap)."""
    right = total = 0
    for h, bits in truth.items():
        for r in range(15):
            a, b = (bits >> (4 * r)) & 15, (hands[h] >> (4 * r)) & 15
            right += min(a, b)
            total += a
    return right / total


def _hidden(view, st, obs) -> dict[int, int]:
    """The hidden cards a dealt state gives each seat holder (known cards removed)."""
    known = known_cards(obs)
    return {int(s): int(st[S_HAND + s]) - known.get(int(s), 0) for s in view.holders if s >= 0}


@pytest.mark.parametrize("rules,moves", [(STANDARD, 7), (MINI, 9)])
def test_compiled_oracle_deals_as_the_python_oracle(rules, moves):
    """Every world keeps the public facts; q = 1 is the true deal; at q = 0.5 the realised
    accuracy of the compiled draws equals the Python oracle's (|z| < 4 over 1,500 each: a
    0.03 shift of q moves it by about z = 6)."""
    game = _point(rules, 3, moves)
    obs = game.observation(game.to_act)
    oracle = NoisyOracleGuesser(1.0)
    oracle.see(game)
    truth = oracle.truth(obs)
    seats = {h: b for h, b in truth.items() if h >= 0}
    st = np.empty(N_STATE, dtype=np.int64)
    seed_core(1)
    view = view_of(obs, oracle=(truth, 1.0))
    sample_world(*view, 0.0, st)
    assert _hidden(view, st, obs) == seats
    n, q = 1500, 0.5
    view = view_of(obs, oracle=(truth, q))
    compiled = []
    for _ in range(n):
        sample_world(*view, 0.0, st)
        hands = _hidden(view, st, obs)
        assert sum(hands.values()) == sum(seats.values()) and st[S_HAND + obs.seat] == obs.hand.bits
        assert all(size_of(hands[s]) == size_of(seats[s]) for s in seats)
        compiled.append(_accuracy(seats, hands))
    g, rng = NoisyOracleGuesser(q), np.random.default_rng(2)
    g.see(game)
    python = [_accuracy(seats, {s: h for s, h in g.guess(obs, rng).items() if s >= 0}) for _ in range(n)]
    a, b = np.array(compiled), np.array(python)
    se = math.sqrt(a.var() / n + b.var() / n)
    assert abs(a.mean() - b.mean()) < 4 * se, (a.mean(), b.mean())
    assert a.mean() > q                                 # the kept cards alone give q


def test_pool_worlds_are_candidates_drawn_by_weight():
    """Each world is one candidate deal, drawn with its weight's probability (|z| < 4 per
    candidate over 20,000 draws); a candidate of weight 0 never comes."""
    game = _point(STANDARD, 5, 12)
    obs = game.observation(game.to_act)
    rng = np.random.default_rng(0)
    sizes = hidden_sizes(obs)
    deals = [make_guesser("uniform").guess(obs, rng) for _ in range(6)]
    weights = np.array([0.3, 0.0, 0.1, 0.25, 0.05, 0.3])
    view = view_of(obs, pool=(deals, weights))
    assert view.pool.shape == (6, len(sizes))
    st = np.empty(N_STATE, dtype=np.int64)
    seed_core(3)
    index = {tuple(sorted((s, b) for s, b in d.items() if s >= 0)): i for i, d in enumerate(deals)}
    counts = np.zeros(6)
    n = 20000
    for _ in range(n):
        sample_world(*view, 0.0, st)
        counts[index[tuple(sorted(_hidden(view, st, obs).items()))]] += 1
    assert counts[1] == 0
    z = (counts - n * weights) / np.sqrt(n * weights * (1 - weights) + 1e-12)
    assert np.all(np.abs(z) < 4), z
    with pytest.raises(DeterminizeError):
        view_of(obs, pool=(deals, np.zeros(6)))


@pytest.mark.parametrize("guesser", ["policy", "oracle0.5"])
@pytest.mark.parametrize("kind", ["ismcts", "mcts"])
def test_pool_and_oracle_guessers_search_compiled(kind, guesser):
    game = _point(STANDARD, 2, 6)
    obs = game.observation(game.to_act)
    moves = []
    for _ in range(2):
        a = make_agent(f"{kind}:iterations=60,guesser={guesser}", seed=4)
        if guesser.startswith("oracle"):
            a.see_all_hands(game)
        moves.append(a.play(obs))
        assert a.last_backend == "numba" and a.last_iterations == 60
    assert moves[0] == moves[1] and moves[0] in obs.legal_moves          # same seed, same move
    if guesser == "policy":
        assert isinstance(a.guesser, PolicyGuesser) and len(a.guesser.ess_log) == 1


@pytest.mark.parametrize("guesser", ["policy", "oracle0.5"])
def test_compiled_search_values_match_the_python_loop(guesser):
    """The same position, guesser and budget on both backends: the root's mean reward,
    averaged over six seeds, agrees within 0.05 (as tests/search/test_compiled.py checks UCT; one
    search's value varies by about 0.04 between seeds)."""
    for s in (0, 3):
        game = _point(MINI, 20 + s, 4 + s)
        obs = game.observation(game.to_act)
        make = lambda sd, backend: make_agent(f"ismcts:iterations=300,guesser={guesser}", seed=sd,  # noqa: E731
                                              backend=backend)
        values = [mean_root_value(make, obs, backend, 300, game=game if guesser.startswith("oracle") else None)
                  for backend in ("numba", "python")]
        assert abs(values[0] - values[1]) < 0.05, values


def _mixed_point(rules, seed: int, moves: int) -> Game:
    """A game after up to ``moves`` moves, each greedy's with probability 0.7, else random
    (so the history holds greedy-like and other plays), at a decision with a choice."""
    game = Game(generate_deals(1, seed=seed, rules=rules)[0], rules=rules, landlord=0)
    rng = np.random.default_rng(seed)
    greedy = GreedyAgent()
    for _ in range(moves):
        legal = game.legal_moves()
        if len(legal) > 1 and game.is_over is False and rng.random() < 0.7:
            move = greedy.play(game.observation(game.to_act))
        else:
            move = legal[int(rng.integers(len(legal)))]
        game.push(move)
        if game.is_over:
            game.undo()
            break
    return game


@pytest.mark.parametrize("rules", [STANDARD, MINI, WILDCARD], ids=lambda r: r.name)
def test_compiled_likelihood_equals_the_python_replay(rules):
    """The compiled greedy replay gives `PolicyGuesser.log_likelihood`'s values exactly, for
    random candidate deals and the true one, with the partner skipped or scored, from every
    seat; and make_guesser's policy pools (which use it) equal the Python-only pools. Under the
    wildcard rules the Python greedy chooses from the core's lists (`CoreOrderGreedy`: their
    order decides ties, docs/core.md), and some histories hold plays with F."""
    rng = np.random.default_rng(1)
    checked = flower = 0
    for s in range(10):
        game = _mixed_point(rules, 40 + s, 3 + 4 * s)
        for seat in range(game.players):
            obs = game.observation(seat)
            truth = NoisyOracleGuesser(1.0)
            truth.see(game)
            deals = [UniformGuesser().guess(obs, rng) for _ in range(6)] + [truth.truth(obs)]
            flower += any(m.cards & F_BIT for _, m in obs.history)
            for partner in ("skip", "same"):
                g = PolicyGuesser(CoreOrderGreedy(), partner=partner)
                python = np.array([g.log_likelihood(obs, d) for d in deals])
                compiled = greedy_log_likelihoods(obs, deals, g.scored_seats(obs), g.eps)
                assert np.array_equal(python, compiled), (s, seat, partner, python, compiled)
                checked += int(np.count_nonzero(python))
    assert checked > 50                                # most histories carry evidence
    assert rules is not WILDCARD or flower >= 3
    game = _mixed_point(rules, 7, 20)
    obs = game.observation(game.to_act)
    fast, slow = make_guesser("policy64"), PolicyGuesser(CoreOrderGreedy(), candidates=64, partner="skip")
    (pa, wa), (pb, wb) = fast.pool(obs, np.random.default_rng(3)), slow.pool(obs, np.random.default_rng(3))
    assert pa == pb and np.array_equal(wa, wb) and fast.ess == slow.ess


def _splits(unseen: int, sizes: dict[int, int]) -> list[dict[int, int]]:
    """Every deal of the unseen cards (16 slots: the flower card's too) to two holders of these
    sizes (as multisets)."""
    a, b = list(sizes)
    counts = [(unseen >> (4 * r)) & 15 for r in range(16)]
    out: list[dict[int, int]] = []

    def rec(r: int, left: int, bits: int) -> None:
        if r == 16:
            if left == 0:
                out.append({a: bits, b: unseen - bits})
            return
        for c in range(min(counts[r], left) + 1):
            rec(r + 1, left - c, bits + (c << (4 * r)))
    rec(0, sizes[a], 0)
    return out


@pytest.mark.parametrize("rules, seed", [(MINI, 37), (MINI, 10), (MINI, 29), (WILDCARD, 1)],
                         ids=["mini-37", "mini-10", "mini-29", "wildcard-1"])
def test_mcmc_pool_follows_the_exact_posterior(rules, seed):
    """On endgames with a few hidden cards (mini; wildcard with F among them), every deal is
    enumerated and its posterior computed exactly: the uniform prior (ways to deal the physical
    cards) times the Python `PolicyGuesser.log_likelihood` (greedy on the core's order). The MCMC
    pool's frequencies are within 0.06 of it in total variation, while the prior alone is far
    from it (so the test could fail)."""
    rng = np.random.default_rng(seed)
    game = Game(generate_deals(1, seed=seed, rules=rules)[0], rules=rules, landlord=0)
    greedy = GreedyAgent()
    while True:                                        # mostly greedy play down to <= 9 hidden cards
        obs = game.observation(game.to_act)
        sizes = hidden_sizes(obs)
        if sum(sizes.values()) <= 9 and len(sizes) == 2 and len(obs.legal_moves) > 1:
            break
        legal = obs.legal_moves
        move = greedy.play(obs) if rng.random() < 0.8 else legal[int(rng.integers(len(legal)))]
        natural = [m for m in legal if not m.cards & F_BIT]
        if move.cards & F_BIT and natural:             # keep F in its hand: hidden at the end
            move = natural[int(rng.integers(len(natural)))]
        game.play(move)
    assert rules is not WILDCARD or obs.unseen.bits & F_BIT      # F is one of the hidden cards
    deals = _splits(obs.unseen.bits, sizes)
    h = next(iter(sizes))
    log_l = np.array([PolicyGuesser(CoreOrderGreedy()).log_likelihood(obs, d) for d in deals])
    prior = np.array([math.prod(math.comb((obs.unseen.bits >> (4 * r)) & 15, (d[h] >> (4 * r)) & 15)
                                for r in range(16)) for d in deals], dtype=float)
    prior /= prior.sum()
    post = prior * np.exp(log_l - log_l.max())
    post /= post.sum()
    g = PosteriorGuesser(samples=4000, chains=200, burn=50, thin=5)
    pool, weights = g.pool(obs, np.random.default_rng(0))
    index = {d[h]: i for i, d in enumerate(deals)}
    freq = np.bincount([index[d[h]] for d in pool], minlength=len(deals)) / len(pool)
    assert 0.5 * np.abs(freq - post).sum() < 0.06
    assert 0.5 * np.abs(prior - post).sum() > 0.2
    assert np.allclose(weights, 1 / 4000) and 0 < g.acceptance < 1
    assert g.ess == pytest.approx(1 / np.sum(freq ** 2))


def test_mcmc_guesser_names_and_search():
    g = make_guesser("mcmc")
    assert isinstance(g, PosteriorGuesser) and g.samples == 64
    assert make_guesser("mcmc256").samples == 256
    with pytest.raises(MCTSConfigError):
        make_guesser("mcmc3")
    game = _point(STANDARD, 2, 6)
    obs = game.observation(game.to_act)
    a = make_agent("ismcts:iterations=60,guesser=mcmc", seed=4)
    move = a.play(obs)
    assert a.last_backend == "numba" and move == make_agent("ismcts:iterations=60,guesser=mcmc", seed=4).play(obs)
    assert len(a.guesser.ess_log) == 1 and 1 <= a.guesser.ess <= 64


def test_a_view_holds_the_public_facts_of_the_game():
    """`view_of`'s state array against `from_game` (the same layout read from the whole game, with
    the game's own pass counter): every public field agrees at every decision of seeded random
    games, the passes since the play to beat among them (a lead and one pass: 1, worked by hand)."""
    from ddzlab.search.state import (S_BID, S_BOMBS, S_KITTY, S_LAST_CARDS, S_LAST_META, S_LAST_SEAT, S_LORD,
                                     S_PASSES, S_PLAYED, S_PLAYERS, S_PLAYS, S_SIZE, S_TO_ACT, from_game)
    game = Game(generate_deals(1, seed=5)[0], landlord=0)
    game.play(game.legal_moves()[0])
    game.play(next(m for m in game.legal_moves() if m.is_pass))
    assert view_of(game.observation(game.to_act)).template[S_PASSES] == 1
    fields = [S_TO_ACT, S_LORD, S_LAST_CARDS, S_LAST_META, S_LAST_SEAT, S_PASSES, S_BOMBS, S_PLAYERS, S_BID, S_KITTY,
              *(f + s for f in (S_SIZE, S_PLAYS, S_PLAYED) for s in range(3))]
    rng = np.random.default_rng(0)
    passes = set()
    for deal in generate_deals(3, seed=11):
        game = Game(deal, landlord=0)
        while not game.is_over:
            obs = game.observation(game.to_act)
            got, ref = view_of(obs).template, from_game(game)
            assert got[fields].tolist() == ref[fields].tolist()
            assert got[S_HAND + game.to_act] == game.hands[game.to_act]
            passes.add(int(ref[S_PASSES]))
            legal = game.legal_moves()
            game.play(legal[int(rng.integers(len(legal)))])
    assert passes == {0, 1}


def test_a_view_has_bomb_candidates_only_when_asked():
    """``bombs``: also the bomb guesser's candidate ranks (docstring); without it the view has none,
    also at a position where `bomb_candidates` lists some."""
    from ddzlab.determinize import bomb_candidates
    rng = np.random.default_rng(1)
    for deal in generate_deals(40, seed=12):
        game = Game(deal, landlord=0)
        while not game.is_over:
            obs = game.observation(game.to_act)
            cand = bomb_candidates(obs)
            if cand:
                assert view_of(obs, bombs=True).bomb_ranks.tolist() == [c[0] for c in cand]
                assert len(view_of(obs).bomb_ranks) == 0
                return
            legal = game.legal_moves()
            game.play(legal[int(rng.integers(len(legal)))])
    raise AssertionError("no position with a bomb candidate in 40 random games")


def test_the_mcmc_guessers_defaults():
    """`PosteriorGuesser`'s defaults, as its signature states them for a guesser built directly
    (the ``mcmcN`` names set their own chains, burn-in and thinning: `MCMC_SETTINGS`): 64
    samples, 4 chains, 100 steps of burn-in, every 4th state, eps 0.1, the partner skipped."""
    g = PosteriorGuesser()
    assert (g.samples, g.chains, g.burn, g.thin, g.eps, g.partner) == (64, 4, 100, 4, 0.1, "skip")
