"""Determinization: every sampled world agrees with everything the observing seat knows."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ddzlab.agents.greedy import GreedyAgent
from ddzlab.agents.base import play_game
from ddzlab.cards import Hand, bits_contain, bits_size
from ddzlab.deals import Deal, generate_deals
from ddzlab.determinize import (REST, BombGuesser, DeterminizeError, PolicyGuesser, UniformGuesser,
                                determinize, guess_accuracy, hidden_sizes, known_cards, rebuild)
from ddzlab.game import Game, Phase, kitty_left
from ddzlab.rules import HOMEWORK, MINI, STANDARD, WILDCARD

# (rules, Game keyword arguments): every rule set, fixed landlord, bidding, and 1v1 games
SETUPS = [
    (STANDARD, {"landlord": 0}),
    (STANDARD, {}),                          # bidding (叫分)
    (STANDARD, {"landlord": 2}),
    (MINI, {}),
    (HOMEWORK, {"landlord": 1}),
    (HOMEWORK, {"players": 2}),
    (STANDARD, {"players": 2}),
    (MINI, {"players": 2}),
    (WILDCARD, {}),
]


def uniform_policy(obs):
    n = len(obs.legal_moves)
    return [1.0 / n] * n


GUESSERS = [
    lambda: UniformGuesser(),
    lambda: BombGuesser(),
    lambda: BombGuesser(p=1.0),
    lambda: PolicyGuesser(GreedyAgent(), candidates=3),
    lambda: PolicyGuesser(uniform_policy, candidates=3),
]


def random_point(setup: int, seed: int, steps: int) -> Game:
    """A game of ``SETUPS[setup]`` after up to ``steps`` random actions (bids and moves)."""
    rules, kw = SETUPS[setup]
    rng = np.random.default_rng(seed)
    game = Game(rules=rules, seed=seed, **kw)
    for _ in range(steps):
        if game.phase is Phase.BIDDING:
            bids = game.legal_bids()
            game.make_bid(bids[int(rng.integers(len(bids)))])
        elif game.phase is Phase.PLAY:
            moves = game.legal_moves()
            game.play(moves[int(rng.integers(len(moves)))])
        else:
            break
    return game


def check_consistent(game: Game, seat: int, world: Game) -> None:
    obs = game.observation(seat)
    assert world.observation(seat) == obs                 # the seat cannot tell them apart
    assert world.hands[seat] == game.hands[seat]
    assert world.sizes == game.sizes
    assert world.sizes == [bits_size(b) for b in world.hands]
    assert world.played == game.played and world.history == game.history
    assert world.phase is game.phase and world.to_act == game.to_act
    assert (world.landlord, world.bid, world.bids, world.bombs) == \
           (game.landlord, game.bid, game.bids, game.bombs)
    assert (world.last_move, world.last_seat, world.passes) == (game.last_move, game.last_seat,
                                                                game.passes)
    assert world.kitty == game.kitty and world.rules == game.rules
    assert world.players == game.players
    if game.landlord is not None:                          # unplayed kitty cards stay put
        left = kitty_left(game.kitty.bits, game.played[game.landlord])
        assert bits_contain(world.hands[game.landlord], left)
    held = sum(world.hands) + sum(world.played)
    if game.players == 3:
        if game.phase is Phase.BIDDING:
            held += world.deal.kitty
        assert held == game.rules.deck                    # union of hands + played = deck
    else:
        assert bits_contain(game.rules.deck, held) and world.deal.kitty == 0
    for s in range(game.players):                          # no seat holds more than the deck
        assert bits_contain(game.rules.deck, world.hands[s])
    if game.to_act == seat:                                # same hand, same options
        assert world.legal_moves() == game.legal_moves() == list(obs.legal_moves)
        assert world.legal_bids() == game.legal_bids()


@settings(max_examples=60, deadline=None)
@given(setup=st.integers(0, len(SETUPS) - 1), seed=st.integers(0, 2**32 - 1),
       steps=st.integers(0, 80), seat=st.integers(0, 2), which=st.integers(0, len(GUESSERS) - 1),
       sample_seed=st.integers(0, 2**32 - 1))
def test_samples_are_consistent(setup, seed, steps, seat, which, sample_seed):
    game = random_point(setup, seed, steps)
    seat %= game.players
    obs = game.observation(seat)
    world = determinize(obs, rng=sample_seed, guesser=GUESSERS[which]())
    check_consistent(game, seat, world)
    again = determinize(obs, rng=sample_seed, guesser=GUESSERS[which]())
    assert again.hands == world.hands and again.deal == world.deal      # same seed, same sample
    # the world plays on to the end (random moves), and undoes back to the sampled point
    rng = np.random.default_rng(sample_seed)
    n = 0
    while world.phase is not Phase.FINISHED:
        if world.phase is Phase.BIDDING:
            bids = world.legal_bids()
            world.make_bid(bids[int(rng.integers(len(bids)))])
            if world.redeals:
                break
        else:
            moves = world.legal_moves()
            world.play(moves[int(rng.integers(len(moves)))])
        n += 1
    if not world.redeals:
        assert world.phase is Phase.FINISHED and sum(world.scores) == 0
        for _ in range(n):
            world.undo()
        check_consistent(game, seat, world)


@pytest.mark.parametrize("setup", range(len(SETUPS)))
def test_samples_vary_and_cover_the_truth(setup):
    """Uniform samples are not all the same deal; accuracy is the share of unseen cards
    placed with their true holder: 1 for the true deal and whenever one holder hides them
    all, below 1 for some sample when several holders hide cards."""
    game = random_point(setup, 11, 12)
    seat = (game.to_act or 0) % game.players
    obs = game.observation(seat)
    sizes = hidden_sizes(obs)
    worlds = [determinize(obs, rng=i) for i in range(40)]
    accuracy = [guess_accuracy(obs, game, w) for w in worlds]
    assert guess_accuracy(obs, game, game) == 1.0
    assert all(0 <= a <= 1 for a in accuracy)
    if sum(1 for n in sizes.values() if n) > 1:
        assert len({w.deal for w in worlds}) > 1
        assert min(accuracy) < 1
    else:
        assert accuracy == [1.0] * len(worlds)


def test_known_kitty_cards_stay_with_the_landlord():
    game = Game(Deal((Hand("33456789TJQKA2BR3").bits, Hand("3444555666777889T").bits,
                      Hand("TTJJJQQQKKKAAA222").bits), Hand("899").bits), landlord=0)
    game.play("9")                                        # one 9 of the kitty's 99 is gone
    obs = game.observation(1)
    assert known_cards(obs) == {0: Hand("89").bits}
    assert REST not in hidden_sizes(obs) and hidden_sizes(obs) == {0: 17, 2: 17}
    for i in range(20):
        assert Hand("89") in determinize(obs, rng=i).hand(0)
    assert guess_accuracy(obs, game, game) == 1.0           # the known 8 and 9 are not guesses
    assert known_cards(game.observation(0)) == {}          # the landlord knows its own hand


def test_bomb_guesser_puts_the_rest_of_a_rank_with_the_other_opponent():
    # seat 0 (the observer, landlord) holds no 5; seats 1 and 2 hold two 5s each, the
    # kitty none. Seat 1 plays one 5: with p=1 the three unseen 5s all go to seat 2.
    hands = (Hand("3344667788TT99JJQ"), Hand("55KKKAAA2223344QQ"), Hand("55667788TT99JJ2BR"))
    kitty = Hand("QKA")
    game = Game(Deal(tuple(h.bits for h in hands), kitty.bits), landlord=0)
    game.play("4")
    game.play("5")
    obs = game.observation(0)
    for i in range(20):
        assert determinize(obs, rng=i, guesser=BombGuesser(p=1.0)).hand(2).count("5") == 3
    counts = {determinize(obs, rng=i, guesser=BombGuesser(p=0.0)).hand(2).count("5")
              for i in range(40)}
    assert len(counts) > 1                                  # p=0: dealt uniformly
    assert counts == {determinize(obs, rng=i).hand(2).count("5") for i in range(40)} | counts


def test_policy_guesser_weights_the_true_deal_highest():
    """Greedy agents played the game: under the greedy policy the true deal explains every
    observed play, so no candidate is more likely."""
    game = play_game(Game(rules=MINI, seed=5), [GreedyAgent()] * 3)
    game.undo()                                             # a point before the end
    for _ in range(3):
        game.undo()
    guesser = PolicyGuesser(GreedyAgent(), candidates=12, eps=0.1)
    obs = game.observation(1)
    true_hidden = {s: game.hands[s] - known_cards(obs).get(s, 0) for s in hidden_sizes(obs)}
    top = guesser.log_likelihood(obs, true_hidden)
    decisions = sum(1 for s, _ in obs.history if s != 1)
    assert top <= 0 and top >= decisions * math.log(0.9) - 1e-9
    rng = np.random.default_rng(0)
    for _ in range(12):
        other = UniformGuesser().guess(obs, rng)
        assert guesser.log_likelihood(obs, other) <= top + 1e-9
    w = determinize(obs, rng=3, guesser=guesser)
    check_consistent(game, 1, w)
    # the pool's weights and ESS by their definitions: w_i proportional to the likelihood of
    # candidate i, ESS = (sum w)^2 / sum w^2, from log_likelihood candidate by candidate
    pool, weights = guesser.pool(obs, rng)                  # the pool determinize drew from
    logw = np.array([guesser.log_likelihood(obs, h) for h in pool])
    expected = np.exp(logw - logw.max()) / np.exp(logw - logw.max()).sum()
    assert len(pool) == 12 and np.allclose(weights, expected, rtol=1e-9, atol=0)
    assert guesser.ess == pytest.approx(expected.sum() ** 2 / (expected ** 2).sum(), rel=1e-12)
    assert 1 <= guesser.ess <= 12


def test_bad_guesses_are_refused():
    game = random_point(0, 3, 5)
    obs = game.observation(1)
    good = UniformGuesser().guess(obs, np.random.default_rng(0))
    with pytest.raises(DeterminizeError):
        rebuild(obs, {k: v for k, v in good.items() if k != 2})
    swapped = dict(good)
    swapped[0], swapped[2] = good[2], good[0]
    if bits_size(good[0]) != bits_size(good[2]):
        with pytest.raises(DeterminizeError):
            rebuild(obs, swapped)
    wrong = dict(good)
    wrong[2] = good[2] + 1 if (good[2] & 15) < 4 else good[2] - 1
    with pytest.raises(DeterminizeError):
        rebuild(obs, wrong)
    with pytest.raises(DeterminizeError):
        BombGuesser(p=1.5)


def test_resume_equals_playing_the_moves():
    game = random_point(1, 21, 30)
    again = Game.resume(game.deal, game.history, game.bids, rules=STANDARD,
                        first_bidder=game.bids[0][0] if game.bids else 0)
    assert again.hands == game.hands and again.observation(0) == game.observation(0)
    for _ in range(len(game.history)):
        again.undo()
        game.undo()
        assert again.hands == game.hands and again.to_act == game.to_act


def test_the_flower_card_in_the_kitty_is_known_to_the_farmers():
    """Wildcard rules, F in the kitty (seed 16, landlord 0): the farmers see the kitty, so
    F is not unseen, and every guessed world leaves F in the landlord's hand; a game with
    an MCTS farmer plays to the end (it stopped with 'bad deal' while F counted as unseen)."""
    from ddzlab.agents import make_agent
    from ddzlab.cards import F_BIT
    game = Game(seed=16, rules=WILDCARD, landlord=0)
    kitty = game.kitty.bits
    assert kitty & F_BIT
    assert kitty_left(kitty, 0) == kitty                    # nothing played: all of it known
    assert kitty_left(kitty, F_BIT) == kitty - F_BIT         # F played: no longer held
    obs = game.observation(1)
    assert not obs.unseen.bits & F_BIT
    assert bits_size(obs.unseen.bits) == game.sizes[0] - bits_size(kitty) + game.sizes[2]
    for seed in range(10):
        world = determinize(obs, seed)
        assert world.hands[0] & F_BIT and world.sizes == game.sizes
    agents = [make_agent("greedy"), make_agent("mcts", iterations=8, seed=0), make_agent("greedy")]
    assert play_game(Game(seed=16, rules=WILDCARD, landlord=0), agents).phase is Phase.FINISHED


def test_policy_guesser_spreads_epsilon_over_the_other_moves():
    """The definition: the agent's choice has probability 1 - eps and each of the n - 1
    other legal moves eps / (n - 1), so the probabilities of all legal moves sum to 1."""
    game = Game(generate_deals(1, seed=3)[0], landlord=0)
    obs = game.observation(0)
    legal = obs.legal_moves
    n = len(legal)
    assert n > 5
    guesser = PolicyGuesser(GreedyAgent(), candidates=3, eps=0.2)
    chosen = GreedyAgent().play(obs)
    probs = [guesser._prob(obs, m) for m in legal]
    assert sum(probs) == pytest.approx(1.0, abs=1e-12)
    for m, p in zip(legal, probs):
        expected = 0.8 if m == chosen else 0.2 / (n - 1)
        assert p == pytest.approx(expected, abs=1e-15), (m, p)


def _bomb_case(moves):
    """Deal 1 of seed 11: seat 0 (landlord, 34457788899TJJQQAAAB with the kitty 4TA)
    holds three 8s, seat 1 none, seat 2 one; the kitty holds a 4, seat 1 no 4."""
    from ddzlab.deals import generate_deals
    game = Game(generate_deals(2, seed=11)[1], landlord=0)
    for m in moves:
        game.play(m)
    return game


def test_bomb_guesser_placement_follows_the_rule_computed_from_the_observation():
    """From the rule's text: a rank of four the observer never held, not in the kitty and
    played by exactly one opponent goes whole (p=1) to the other opponent; a rank with a
    copy in the kitty, or played by both opponents, is dealt uniformly (some world gives
    the player a copy)."""
    game = _bomb_case(["8"])
    obs = game.observation(1)
    unseen8 = obs.unseen.count("8")
    assert unseen8 == 3 and Hand.from_bits(game.kitty.bits).count("8") == 0
    for i in range(20):                                  # played by seat 0 only: all to seat 2
        world = determinize(obs, rng=i, guesser=BombGuesser(p=1.0))
        assert world.hand(2).count("8") == 3 and world.hand(0).count("8") == 0
    kitty_case = _bomb_case(["4"]).observation(1)        # the kitty held a 4: no rule
    assert kitty_case.unseen.count("4") == 3
    lord_has = [determinize(kitty_case, rng=i, guesser=BombGuesser(p=1.0)).hand(0).count("4")
                for i in range(40)]
    assert max(lord_has) > 0
    # seat 2 plays an 8 over a 3, then seat 0 an 8 over a 4: played by both opponents
    both = _bomb_case(["3", "pass", "8", "pass", "pass", "4", "8"]).observation(1)
    assert both.to_act == 1 and both.unseen.count("8") == 2
    lord_has = [determinize(both, rng=i, guesser=BombGuesser(p=1.0)).hand(0).count("8")
                for i in range(40)]
    assert max(lord_has) > 0


def test_uniform_guesser_is_uniform():
    """Every consistent deal equally likely: the copies of a rank that seat 0 gets follow
    the hypergeometric law (unseen cards, their copies of the rank, seat 0's hidden size).
    A chi-square test over 3000 guesses (fixed seeds: the test is deterministic)."""
    from scipy import stats
    game = Game(generate_deals(1, seed=3)[0], landlord=0)
    obs = game.observation(1)
    sizes = hidden_sizes(obs)
    total, copies, size0 = bits_size(obs.unseen.bits), obs.unseen.count("Q"), sizes[0]
    assert copies >= 2
    counts = np.zeros(copies + 1)
    guesser = UniformGuesser()
    rng = np.random.default_rng(0)
    for _ in range(3000):
        counts[Hand.from_bits(guesser.guess(obs, rng)[0]).count("Q")] += 1
    expected = 3000 * stats.hypergeom(total, copies, size0).pmf(np.arange(copies + 1))
    keep = expected >= 5
    chi2 = float((((counts - expected) ** 2 / expected)[keep]).sum())
    assert stats.chi2(int(keep.sum()) - 1).sf(chi2) > 0.001, (counts, expected)


def test_bomb_candidates_are_the_rule_computed_from_the_observation():
    """`bomb_candidates` (the one statement of the bomb guesser's rule, read by the Python
    guesser and the compiled sampler) on the cases above: (rank, unseen copies, receiver)."""
    from ddzlab.determinize import bomb_candidates
    r8, r4 = "3456789TJQKA2BR".index("8"), "3456789TJQKA2BR".index("4")
    obs = _bomb_case(["8"]).observation(1)
    assert bomb_candidates(obs) == [(r8, 3, 2)]                  # seat 0 played it: seat 2 gets it
    assert bomb_candidates(_bomb_case(["4"]).observation(1)) == []     # a 4 in the kitty
    both = _bomb_case(["3", "pass", "8", "pass", "pass", "4", "8"]).observation(1)
    assert all(r != r8 for r, _, _ in bomb_candidates(both))     # played by both opponents
    assert r4 not in [r for r, _, _ in bomb_candidates(both)]
    two = Game(generate_deals(1, seed=3, rules=STANDARD, players=2)[0], players=2)
    two.play(two.legal_moves()[0])
    assert bomb_candidates(two.observation(two.to_act)) == []    # one opponent: no rule


def test_a_pool_is_not_reused_for_another_game_that_looks_the_same_to_the_seat():
    """The cached pool was keyed by seat, hand, bids and plays: a guesser shown a second game
    whose kitty differs (the landlord holds the same 20 cards) answered with the first game's
    deals, which put a card the second kitty reveals in a hidden hand."""
    deal = generate_deals(1, seed=5)[0]
    lord = Hand.from_bits(deal.hands[0])
    kitty = Hand.from_bits(deal.kitty)
    x = next(r for r in "3456789TJQKA2" if lord.count(r) and not kitty.count(r))
    y = next(r for r in "3456789TJQKA2BR" if kitty.count(r) and not lord.count(r) and r != x)
    one, other = 1 << (4 * "3456789TJQKA2BR".index(x)), 1 << (4 * "3456789TJQKA2BR".index(y))
    swapped = Deal((deal.hands[0] - one + other, deal.hands[1], deal.hands[2]), deal.kitty - other + one)
    observations = []
    for d in (deal, swapped):
        game = Game(d, landlord=0)
        game.play(next(m for m in game.legal_moves() if not m.cards & (one | other)))
        observations.append(game.observation(1))
    a, b = observations
    assert (a.hand, a.history) == (b.hand, b.history) and a.kitty != b.kitty
    g = PolicyGuesser(GreedyAgent(), candidates=4)
    g.guess(a, np.random.default_rng(0))
    for i in range(8):
        guess = g.guess(b, np.random.default_rng(i))
        assert sum(guess.values()) == b.unseen.bits


def _corrupted(obs, how: int, rng: np.random.Generator):
    """``obs`` with one fact made impossible (or, by chance, still possible): a card moved
    between the hand and the unseen cards, a seat's card count changed, a move's seat
    changed, a played card added."""
    import dataclasses
    deck = obs.rules.deck
    if how == 0 and obs.hand.bits:                           # a card of the hand dropped
        r = int(rng.choice([r for r in range(15) if (obs.hand.bits >> (4 * r)) & 15]))
        return dataclasses.replace(obs, hand=Hand.from_bits(obs.hand.bits - (1 << (4 * r))))
    if how == 1:                                             # an unseen card added to the hand
        spare = deck - obs.hand.bits - sum(obs.played_bits)
        ranks = [r for r in range(16) if (spare >> (4 * r)) & 15]
        if ranks:
            r = int(rng.choice(ranks))
            return dataclasses.replace(obs, hand=Hand.from_bits(obs.hand.bits + (1 << (4 * r))))
    if how == 2:                                             # a seat's count off by one
        s = int(rng.integers(obs.players))
        left = list(obs.cards_left)
        left[s] += int(rng.choice([-1, 1]))
        return dataclasses.replace(obs, cards_left=tuple(left))
    if how == 3 and obs.history:                             # a move made by another seat
        i = int(rng.integers(len(obs.history)))
        seat, move = obs.history[i]
        history = list(obs.history)
        history[i] = ((seat + 1) % obs.players, move)
        return dataclasses.replace(obs, history=tuple(history))
    return obs


@settings(max_examples=80, deadline=None)
@given(setup=st.integers(0, len(SETUPS) - 1), seed=st.integers(0, 2**32 - 1),
       steps=st.integers(0, 60), seat=st.integers(0, 2), how=st.integers(0, 4))
def test_check_position_refuses_exactly_what_determinize_refuses(setup, seed, steps, seat, how):
    """`check_position` (the compiled searches' check) and `determinize` (a world dealt by
    the uniform guesser) agree on every observation: a true one and one with a fact changed."""
    from ddzlab.determinize import check_position
    game = random_point(setup, seed, steps)
    obs = game.observation(seat % game.players)
    check_position(obs)                                      # a true observation passes
    bad = _corrupted(obs, how, np.random.default_rng(seed))
    try:
        determinize(bad, rng=seed)
        expected = None
    except ValueError as e:
        expected = type(e)
    if expected is None:
        check_position(bad)
    else:
        with pytest.raises(expected):
            check_position(bad)


def test_a_landlord_hand_one_card_short_is_refused_by_both_backends():
    """The compiled search refuses a position no game reaches, as the Python one does."""
    import dataclasses
    from ddzlab.agents import make_agent
    game = Game(generate_deals(1, seed=4)[0], landlord=0)
    obs = game.observation(0)
    short = dataclasses.replace(obs, hand=Hand.from_bits(obs.hand.bits - (obs.hand.bits & -obs.hand.bits)))
    refused = []
    for backend in ("python", "numba"):
        agent = make_agent("ismcts:iterations=20", seed=1, backend=backend)
        with pytest.raises(ValueError, match="16 cards") as e:
            agent.play(short)
        refused.append(type(e.value))
    assert refused[0] is refused[1]


@pytest.mark.parametrize("rules", [STANDARD, MINI, HOMEWORK, WILDCARD], ids=lambda r: r.name)
def test_a_games_own_observation_is_marked_and_passes_the_replay_it_skips(rules):
    """`Game.observation` marks what it makes (``from_game``), so `check_position` does not
    replay it; the replay would pass: the same observation unmarked (``dataclasses.replace``
    makes a new one) is replayed without error, at every seat's turn of random games, two
    players included. A hand-built observation is never marked."""
    import dataclasses
    from ddzlab.determinize import check_position
    rng = np.random.default_rng(8)
    checked = 0
    for players, deal_seed in ((3, 4), (3, 5), (2, 6)):
        game = Game(generate_deals(1, seed=deal_seed, rules=rules, players=players)[0], rules=rules,
                    landlord=0 if players == 3 else None, players=players)
        while not game.is_over:
            obs = game.observation(game.to_act)
            again = dataclasses.replace(obs)
            assert obs.from_game and not again.from_game and again == obs
            check_position(again)
            checked += 1
            legal = game.legal_moves()
            game.push(legal[int(rng.integers(len(legal)))])
    assert checked > 30
