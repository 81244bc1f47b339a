"""`ddzlab.determinize` checked against its definitions where the mutation run of
`make mutation MODULE=determinize` found the other tests silent (tests/MUTATION.md): the
seats a likelihood guesser scores, the bomb guesser's rule, the guessers' input
checks and messages, seeded and reproducible worlds, games that had an auction, draws
from a policy pool in proportion to its weights; and the bomb guesser at the edge
of an opponent's room, observations whose counts do not add up, a card dealt twice, a policy
given as probabilities, the default pool size."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ddzlab.agents.base import play_game
from ddzlab.agents.greedy import GreedyAgent
from ddzlab.agents.smallest import SmallestAgent
from ddzlab.cards import N_SLOTS, RANK_CHARS, Hand, bits_size
from ddzlab.deals import generate_deals
from ddzlab.determinize import (REST, BombGuesser, DeterminizeError, NoisyOracleGuesser, PolicyGuesser,
                                UniformGuesser, bomb_candidates, determinize, known_cards, hidden_sizes, modelled_seats,
                                rebuild)
from ddzlab.game import Game, Phase
from ddzlab.rules import MINI, STANDARD


def _farmer_view(seed: int = 7, undo: int = 4):
    game = play_game(Game(rules=MINI, seed=seed, landlord=0), [GreedyAgent()] * 3)
    for _ in range(undo):
        game.undo()
    return game, game.observation(1)


def test_modelled_seats_by_definition():
    # every other seat; the partner only when asked; a landlord has no partner
    game, obs = _farmer_view()
    assert modelled_seats(obs, partner=True) == {0, 2}
    assert modelled_seats(obs, partner=False) == {0}
    lord = game.observation(0)
    assert modelled_seats(lord, partner=False) == modelled_seats(lord, partner=True) == {1, 2}
    assert PolicyGuesser(GreedyAgent(), partner="same").scored_seats(obs) == {0, 2}
    assert PolicyGuesser(GreedyAgent(), partner="skip").scored_seats(obs) == {0}


def test_the_guessers_check_their_settings_and_say_which():
    PolicyGuesser(GreedyAgent(), candidates=1)              # one candidate is a (trivial) pool
    for bad in (0, -3):
        with pytest.raises(DeterminizeError, match="candidates"):
            PolicyGuesser(GreedyAgent(), candidates=bad)
    for eps in (0, 1, 1.5):
        with pytest.raises(DeterminizeError, match="eps"):
            PolicyGuesser(GreedyAgent(), eps=eps)
    PolicyGuesser(GreedyAgent(), eps=0.999)
    with pytest.raises(DeterminizeError, match="partner='nobody'"):
        PolicyGuesser(GreedyAgent(), partner="nobody")
    for p in (-0.1, 1.1):
        with pytest.raises(DeterminizeError, match=f"p={p} is not a probability"):
            BombGuesser(p)
    with pytest.raises(DeterminizeError, match="q=2 is not a probability"):
        NoisyOracleGuesser(2)
    _, obs = _farmer_view()
    with pytest.raises(DeterminizeError, match="^a NoisyOracleGuesser must be shown the true game"):
        NoisyOracleGuesser(0.5).guess(obs, np.random.default_rng(0))


def test_rebuild_names_a_bad_guess():
    _, obs = _farmer_view()
    good = UniformGuesser().guess(obs, np.random.default_rng(0))
    holders = sorted(good)
    with pytest.raises(DeterminizeError, match=r"a guess must deal to holders"):
        rebuild(obs, {h: good[h] for h in holders[1:]})
    short = dict(good)
    short[holders[0]] = 0
    with pytest.raises(DeterminizeError, match=f"holder {holders[0]} must get"):
        rebuild(obs, short)


def _bidding_view(seed: int = 11):
    game = Game(rules=STANDARD, seed=seed)
    assert game.phase is Phase.BIDDING
    return game, game.observation(game.to_act)


def _redeal_hands(world: Game) -> tuple:
    while world.phase is Phase.BIDDING:              # everyone passes: the world deals again
        world.make_bid(0)
        if world.phase is Phase.BIDDING and not world.bids:
            break
    return tuple(world.hands)


def test_worlds_are_seeded_from_the_generator_and_reproducible():
    # a world's own random generator (it deals again after an all-pass auction) comes from
    # the generator determinize was given: the same generator, the same world, and distinct
    # generators give distinct worlds (60 redeals, no two alike)
    _, obs = _bidding_view()
    same = [_redeal_hands(determinize(obs, np.random.default_rng(5))) for _ in range(2)]
    assert same[0] == same[1]
    redeals = {_redeal_hands(determinize(obs, np.random.default_rng(s))) for s in range(60)}
    assert len(redeals) == 60


def test_a_game_with_an_auction_rebuilds_as_played():
    # the first bidder and the bids come back; the likelihood replays from the start of play
    game = Game(rules=STANDARD, seed=4, first_bidder=2)
    agents = [GreedyAgent(), SmallestAgent(), GreedyAgent()]
    while game.phase is Phase.BIDDING:
        game.make_bid(max(game.legal_bids()))
    for _ in range(5):
        seat = game.to_act
        game.play(agents[seat].play(game.observation(seat)), seat)
    obs = game.observation(game.to_act)
    true_hidden = {s: game.hands[s] - known_cards(obs).get(s, 0) for s in hidden_sizes(obs)}
    if REST in hidden_sizes(obs):
        true_hidden[REST] = game.deal.kitty - known_cards(obs).get(REST, 0)
    world = rebuild(obs, true_hidden, seed=0)
    assert world.bids == game.bids and world.landlord == game.landlord
    assert list(world.hands) == list(game.hands) and world.history == game.history
    # the likelihood by its definition, replayed on the true game from its auction: at each
    # play of another seat, 1 - eps if greedy would have made it, else eps / (n - 1) of the
    # n legal moves (1 when the move was forced)
    eps = 0.1
    ref = Game.resume(game.deal, (), game.bids, rules=STANDARD, first_bidder=2)
    expected = 0.0
    for seat, move in game.history:
        here = ref.observation(seat)
        n = len(here.legal_moves)
        if seat != obs.seat and n > 1:
            chosen = GreedyAgent().play(here)
            same = chosen.cards == move.cards and chosen.kind == move.kind
            expected += np.log(1 - eps if same else eps / (n - 1))
        ref.play(move, seat)
    ll = PolicyGuesser(GreedyAgent(), partner="same", eps=eps).log_likelihood(obs, true_hidden)
    assert ll == pytest.approx(expected, rel=1e-12)


def test_a_world_dealt_during_the_auction_keeps_the_first_bidder():
    game = Game(rules=STANDARD, seed=6, first_bidder=2)
    world = determinize(game.observation(2), np.random.default_rng(0))
    assert world.phase is Phase.BIDDING and world.to_act == 2


def test_a_pool_is_drawn_in_proportion_to_its_weights():
    _, obs = _farmer_view(seed=5, undo=3)
    guesser = PolicyGuesser(GreedyAgent(), candidates=12, eps=0.1)
    rng = np.random.default_rng(0)
    pool, weights = guesser.pool(obs, rng)
    top = int(np.argmax(weights))
    assert weights[top] > 0.25                    # far from uniform (1/12): a draw can tell
    n = 2000
    hits = sum(guesser.guess(obs, rng) == pool[top] for _ in range(n))
    sd = np.sqrt(weights[top] * (1 - weights[top]) / n)
    assert abs(hits / n - weights[top]) < 5 * sd


def test_a_partner_model_is_used_for_the_partners_plays():
    # partner=<policy> scores the partner's plays under that policy, not the opponents'
    _, obs = _farmer_view()
    hidden = UniformGuesser().guess(obs, np.random.default_rng(1))
    same = PolicyGuesser(GreedyAgent(), partner="same").log_likelihood(obs, hidden)
    other = PolicyGuesser(GreedyAgent(), partner=SmallestAgent()).log_likelihood(obs, hidden)
    skip = PolicyGuesser(GreedyAgent(), partner="skip").log_likelihood(obs, hidden)
    assert other != same and other <= skip


def _random_game(seed: int, moves: int, rng: np.random.Generator) -> Game:
    """A standard game (landlord ``seed % 3``) after up to ``moves`` random legal moves."""
    game = Game(rules=STANDARD, seed=seed, landlord=seed % 3)
    for _ in range(moves):
        if game.phase is not Phase.PLAY:
            break
        legal = game.legal_moves()
        game.play(legal[int(rng.integers(len(legal)))], game.to_act)
    return game


def _random_positions(n: int):
    """Observations at random points of random standard games (random legal moves)."""
    rng = np.random.default_rng(2027)
    for seed in range(n):
        game = _random_game(seed, int(rng.integers(0, 45)), rng)
        if game.phase is Phase.PLAY:
            yield game, game.observation(int(rng.integers(3)))


def _count(cards, rank: str) -> int:
    return str(cards).count(rank) if cards is not None else 0


def _bomb_ranks_by_the_rule(obs):
    """The ranks the seed's rule forces, from the observation's card texts alone: all four
    copies in the deck, none ever in the observer's hand or the kitty, played by exactly one
    opponent, copies still unseen; they go to the other opponent."""
    opponents = [s for s in range(3) if s != obs.seat]
    out = []
    for r, ch in enumerate(RANK_CHARS):
        unseen = _count(obs.unseen, ch)
        mine = _count(obs.hand, ch) + _count(Hand.from_bits(obs.played_bits[obs.seat]), ch)
        players = [s for s in opponents if _count(Hand.from_bits(obs.played_bits[s]), ch)]
        if (unseen and _count(Hand.from_bits(obs.rules.deck), ch) == 4 and not mine
                and not _count(obs.kitty, ch) and len(players) == 1):
            out.append((r, unseen, next(s for s in opponents if s != players[0])))
    return out


def test_bomb_candidates_and_placement_follow_the_rule():
    seen = 0
    for game, obs in _random_positions(300):
        expected = _bomb_ranks_by_the_rule(obs)
        assert bomb_candidates(obs) == expected
        seen += len(expected)
        # p = 1: each forced rank's unseen copies all go to the other opponent while it has room
        guess = BombGuesser(1.0).guess(obs, np.random.default_rng(0))
        room = dict(hidden_sizes(obs))
        for r, left, other in expected:
            if room[other] >= left:
                assert (guess[other] >> (4 * r)) & 15 == left
                room[other] -= left
        assert sum(bits_size(b) for b in guess.values()) == bits_size(obs.unseen.bits)
    assert seen >= 30                                 # the rule fired often enough to be tested


def test_a_policy_guesser_draws_its_candidates_from_the_base_guesser_it_is_given():
    game, obs = _farmer_view()
    truth = {s: game.hands[s] - known_cards(obs).get(s, 0) for s in hidden_sizes(obs)}

    class Truthful:
        def guess(self, obs, rng):
            return dict(truth)

    pool, _ = PolicyGuesser(GreedyAgent(), candidates=5, base=Truthful()).pool(obs, np.random.default_rng(0))
    assert pool == [truth] * 5


# -- the survivors of a fresh run of `tests/mutation.py determinize`
def _late_position(seed: int) -> Game:
    """A standard game after 20-80 random legal moves (seeded): hands are small by then."""
    rng = np.random.default_rng(seed)
    return _random_game(seed, int(rng.integers(20, 80)), rng)


#: (seed, observer) of late positions where a forced rank exactly fills the other opponent's
#: room, or no longer fits after another rank was forced to it (found by a search over seeds)
EDGE_POSITIONS = [(44, 1), (76, 1), (88, 0), (110, 2), (190, 0), (2191, 0), (2228, 0)]


def test_bomb_placement_at_the_edge_of_the_room():
    """p = 1 forces a rank's unseen copies to the other opponent exactly when its room (its
    unknown cards less the copies already forced to it) holds them all: a room equal to the
    copies is enough; a rank that no longer fits is dealt with the rest, and every holder
    still gets exactly its number of cards."""
    exact = short = 0
    for seed, seat in EDGE_POSITIONS:
        game = _late_position(seed)
        assert game.phase is Phase.PLAY
        obs = game.observation(seat)
        sizes = hidden_sizes(obs)
        guess = BombGuesser(1.0).guess(obs, np.random.default_rng(0))
        assert {h: bits_size(b) for h, b in guess.items()} == sizes
        room = dict(sizes)
        for r, left, other in _bomb_ranks_by_the_rule(obs):
            exact += room[other] == left
            if room[other] >= left:
                assert (guess[other] >> (4 * r)) & 15 == left, (seed, seat, r)
                room[other] -= left
            else:
                short += 1
    assert exact >= 3 and short >= 2                    # both edges are in the positions


def test_hidden_sizes_refuse_an_observation_whose_counts_do_not_add_up():
    _, obs = _farmer_view()
    other = next(s for s in range(3) if s != obs.seat)
    counts = list(obs.cards_left)
    counts[other] += 1                                    # one card more than the unseen cards allow
    bad = dataclasses.replace(obs, cards_left=tuple(counts))
    with pytest.raises(DeterminizeError, match=f"^seat {obs.seat}'s observation is inconsistent"):
        hidden_sizes(bad)


def test_rebuild_refuses_a_card_dealt_twice():
    # right holders, right counts, every part among the unseen cards, one card twice
    _, obs = _farmer_view()
    good = UniformGuesser().guess(obs, np.random.default_rng(0))
    a, b = sorted(h for h in good if good[h])[:2]
    ranks = {h: [r for r in range(N_SLOTS) if (good[h] >> (4 * r)) & 15] for h in (a, b)}
    ra = ranks[a][0]                                      # a card of a's lowest rank...
    rb = next(r for r in ranks[b] if r != ra)             # ...given to b instead of one of its own
    twice = dict(good)
    twice[b] = good[b] - (1 << (4 * rb)) + (1 << (4 * ra))
    assert bits_size(twice[b]) == bits_size(good[b]) and sum(twice.values()) != obs.unseen.bits
    with pytest.raises(DeterminizeError, match="^the guess deals"):
        rebuild(obs, twice)


def test_a_policy_given_as_probabilities_scores_each_move_by_its_own_probability():
    # distinct probabilities per legal move: a move gets its own, not that of an earlier move
    # of its kind or its cards; a probability of 0 is floored at 1e-12
    game = Game(generate_deals(1, seed=3)[0], landlord=0)
    obs = game.observation(0)
    legal = obs.legal_moves
    n = len(legal)
    probs = np.arange(n, dtype=float) / (n * (n - 1) / 2)          # 0, 1, ..., n - 1, summing to 1
    guesser = PolicyGuesser(lambda o: probs)
    got = [guesser._prob(obs, m) for m in legal]
    assert got[0] == 1e-12 and got[1:] == pytest.approx(list(probs[1:]), abs=0)
    assert len({m.kind for m in legal}) < n                          # kinds repeat: the test can fail


def test_a_policy_guesser_pools_32_candidate_deals_by_default():
    _, obs = _farmer_view()
    pool, weights = PolicyGuesser(GreedyAgent()).pool(obs, np.random.default_rng(0))
    assert len(pool) == 32 and len(weights) == 32
