"""Sampling hidden cards (determinization): a full `Game` consistent with one seat's view.

A seat sees its own hand and everything public: every card played, the kitty once the
landlord has taken it, each seat's card count. `determinize` deals the cards it cannot see
to the other seats and returns a `Game` that continues from exactly the same point (same
history, bids, trick, seat to act, bombs), so a search can play it forward. What is a
*fact* is never guessed: the kitty cards the landlord has not played yet stay in its hand
(`known_cards`), and every holder gets exactly as many cards as it holds.

Where the unknown cards go is a `Guesser`'s choice (a small protocol, pluggable):

* `UniformGuesser`: every consistent deal equally likely;
* `BombGuesser`: the Mini-doudizhu player's "nobody splits a bomb" (docs/definitions.md#bomb-guesser): when one
  opponent has played a rank of which the two opponents held all four copies, the copies
  still unseen go to the *other* opponent with probability ``p`` (0.8);
* `PolicyGuesser`: importance resampling. It draws ``candidates`` deals from a base
  guesser, weights each by how likely the opponents' observed plays were under a given
  policy (an agent, or a function giving move probabilities), and picks one by weight.
  A farmer's partner is not modelled by that policy unless asked (see the class);
* `NoisyOracleGuesser`: a study's yardstick, not a fair guesser: it is shown the true deal
  and places each hidden card with its true holder with probability ``q``, the rest as the
  uniform guesser would (``q = 1`` is the true deal; accuracy against WP in notebook 05).

Holders are seats, plus `REST` for cards no seat holds: the kitty during bidding, the
undealt cards of a two-player game.

>>> from ddzlab.game import Game
>>> from ddzlab.deals import generate_deals
>>> g = Game(generate_deals(1, seed=0)[0], landlord=0)
>>> _ = g.play(g.legal_moves()[0])
>>> obs = g.observation(1)
>>> w = determinize(obs, rng=7)
>>> w.observation(1) == obs, w.hand(1) == g.hand(1), w.history == g.history
(True, True, True)
>>> determinize(obs, rng=7).hands == w.hands          # same seed, same sample
True
"""
from __future__ import annotations

import math
from typing import Any, Callable, Mapping, Optional, Protocol, Sequence, Union, runtime_checkable

import numpy as np

from .cards import N_RANKS, N_SLOTS, bits_contain, bits_size, format_bits, shuffled
from .deals import Deal, SeedLike, as_rng
from .errors import DdzError
from .game import Game, Observation, Phase, kitty_left
from .moves import Move

#: the holder of cards no seat holds (the kitty before the landlord takes it; undealt cards)
REST = -1


class DeterminizeError(DdzError):
    """An observation that no deal can match, or a guess that does not fit it."""


def known_cards(obs: Observation) -> dict[int, int]:
    """Packed cards of other seats that ``obs.seat`` knows for certain: the kitty cards
    the landlord has not played yet (empty when the observer is the landlord)."""
    if obs.kitty is None or obs.landlord is None or obs.landlord == obs.seat:
        return {}
    return {obs.landlord: kitty_left(obs.kitty.bits, obs.played_bits[obs.landlord])}


def hidden_sizes(obs: Observation) -> dict[int, int]:
    """How many unknown cards each holder has: every other seat (less its known cards),
    and `REST` when some unseen cards belong to no seat."""
    known = known_cards(obs)
    sizes = {s: obs.cards_left[s] - bits_size(known.get(s, 0))
             for s in range(obs.players) if s != obs.seat}
    rest = bits_size(obs.unseen.bits) - sum(sizes.values())
    if rest < 0 or any(v < 0 for v in sizes.values()):
        raise DeterminizeError(f"seat {obs.seat}'s observation is inconsistent: the other seats "
                               f"hold {sum(sizes.values())} unknown cards but only "
                               f"{bits_size(obs.unseen.bits)} are unseen")
    if rest:
        sizes[REST] = rest
    return sizes


def deal_in_order(cards: int, sizes: dict[int, int], rng: np.random.Generator) -> dict[int, int]:
    """Shuffle ``cards`` and deal them to the holders of ``sizes`` (in key order)."""
    return _deal(shuffled(cards, rng), sizes)


def _deal(order: Sequence[int], sizes: dict[int, int]) -> dict[int, int]:
    """The ranks of ``order`` dealt to the holders of ``sizes`` in turn, as packed cards."""
    out, i = {}, 0
    for holder, n in sizes.items():
        bits = 0
        for r in order[i:i + n]:
            bits += 1 << (4 * r)
        out[holder] = bits
        i += n
    return out


@runtime_checkable
class Guesser(Protocol):
    """Decides where the unseen cards are: ``guess(obs, rng)`` returns the packed cards of
    each holder of `hidden_sizes` (exactly that many; together exactly ``obs.unseen``)."""

    def guess(self, obs: Observation, rng: np.random.Generator) -> dict[int, int]:
        ...


class UniformGuesser:
    """Every deal consistent with the observation is equally likely."""

    name = "uniform"

    def guess(self, obs: Observation, rng: np.random.Generator) -> dict[int, int]:
        return deal_in_order(obs.unseen.bits, hidden_sizes(obs), rng)


def bomb_candidates(obs: Observation) -> list[tuple[int, int, int]]:
    """The ranks `BombGuesser` may force, as (rank, unseen copies, the opponent who gets
    them), in rank order: a rank of four copies in the deck that the observer never held and
    that is not in the kitty (so the two opponents held all four), played by exactly one
    opponent, with copies still unseen; they would go to the *other* opponent. Empty unless
    the observer has two opponents. The compiled sampler (`ddzlab.search.sample.view_of`)
    reads the same list."""
    others = [s for s in range(obs.players) if s != obs.seat]
    if len(others) != 2:
        return []
    unseen = obs.unseen.bits
    mine = obs.hand.bits + obs.played_bits[obs.seat]
    kitty = obs.kitty.bits if obs.kitty is not None else 0
    deck = obs.rules.deck
    out = []
    for r in range(N_RANKS):
        shift = 4 * r
        left = (unseen >> shift) & 15
        if not left or (deck >> shift) & 15 != 4 or (mine >> shift) & 15 or (kitty >> shift) & 15:
            continue
        by = [s for s in others if (obs.played_bits[s] >> shift) & 15]
        if len(by) == 1:
            out.append((r, left, others[0] if by[0] == others[1] else others[1]))
    return out


class BombGuesser:
    """Mini-doudizhu's guesser: nobody splits a bomb (see the module docstring).

    For a rank of four copies that the observer never held and that is not in the kitty
    (so the two opponents held all four), played by exactly one opponent, with copies
    still unseen: with probability ``p`` all of them go to the other opponent (if it has
    room). The rest is dealt uniformly. Only three-player games have two opponents; a
    two-player game is dealt uniformly.
    """

    name = "bomb"

    def __init__(self, p: float = 0.8) -> None:
        if not 0 <= p <= 1:
            raise DeterminizeError(f"p={p} is not a probability")
        self.p = p

    def guess(self, obs: Observation, rng: np.random.Generator) -> dict[int, int]:
        sizes = hidden_sizes(obs)
        unseen = obs.unseen.bits
        forced = {s: 0 for s in range(obs.players) if s != obs.seat}
        for r, left, other in bomb_candidates(obs):
            if rng.random() < self.p and sizes[other] - bits_size(forced[other]) >= left:
                forced[other] += left << (4 * r)
        rest = unseen - sum(forced.values())
        room = {h: n - bits_size(forced.get(h, 0)) for h, n in sizes.items()}
        out = deal_in_order(rest, room, rng)
        for s, bits in forced.items():
            out[s] += bits
        return out


#: a policy for `PolicyGuesser`: an agent (``play(obs) -> Move``, taken as deterministic)
#: or a function ``obs -> probabilities`` aligned with ``obs.legal_moves``
Policy = Union[Any, Callable[[Observation], Sequence[float]]]
#: a faster computation of `PolicyGuesser.log_likelihood` for a batch of candidate deals:
#: ``(obs, deals, scored seats, eps) -> array`` of log-likelihoods, or None where it cannot
#: (then the Python replay runs); e.g. the compiled greedy replay of `ddzlab.search.likelihood`
Likelihoods = Callable[[Observation, Sequence[dict[int, int]], set[int], float], Optional[np.ndarray]]


def partner_of(obs: Observation) -> Optional[int]:
    """The observer's partner: the other farmer when ``obs.seat`` is a farmer of a
    three-player game whose landlord is known, else None."""
    if obs.players != 3 or obs.landlord is None or obs.landlord == obs.seat:
        return None
    return 3 - obs.seat - obs.landlord


def pool_key(obs: Observation) -> tuple:
    """What a guesser's cached pool of deals is kept for: every fact of ``obs`` a deal must
    fit (rules, seat, landlord, kitty, own hand, bids, plays). A guesser used in several games
    (not only the arena's one game per agent) must not hand one game's deals to another that
    looks the same to the seat but has another kitty."""
    return (obs.rules.name, obs.players, obs.seat, obs.landlord,
            None if obs.kitty is None else obs.kitty.bits, obs.hand.bits, obs.bids, obs.history)


def modelled_seats(obs: Observation, partner: bool) -> set[int]:
    """The seats whose plays a likelihood guesser scores at ``obs``: every other seat but
    the observer's partner, and the partner too when ``partner`` (see `PolicyGuesser`)."""
    mate = partner_of(obs)
    return {s for s in range(obs.players) if s != obs.seat and (s != mate or partner)}


class PolicyGuesser:
    """Importance resampling: deals weighted by how likely the observed plays were.

    For an observation it draws ``candidates`` deals (32 by default) from ``base`` (by default
    uniform), replays the game from the start of play in each, and multiplies, over every move the
    *modelled* seats made, the policy's probability of that move. An agent's choice counts
    as probability ``1 - eps`` (the rest spread over the other legal moves), so a deal in
    which it would have played otherwise is unlikely but never impossible. Each `guess`
    then picks one candidate by weight. The candidates and weights are built once per
    observation (cached for the last one), so many guesses for one decision are cheap.
    ``ess`` is the effective sample size of the last pool (1..candidates),
    ``(Σw)² / Σw²``; ``ess_log`` keeps it for every pool built.

    **The partner.** The posterior of the hidden cards is the prior times, for every
    other seat's play, the probability *that seat's own policy* gave the play. For the
    opponents ``policy`` is the model under study. A farmer's partner is not an opponent:
    in a search agent's games it is another copy of the searcher, whose move probabilities
    cannot be evaluated (and are not ``policy``'s: a search departs from the greedy choice
    exactly where it finds better). Scoring its plays with ``policy`` would reward deals
    in which the partner's search move happens to look greedy, evidence that is wrong by
    construction. ``partner="skip"`` (the default) gives the partner's plays likelihood 1:
    they still constrain the deal (the cards it played are gone, its count is exact) but
    carry no behavioural evidence: information dropped, none invented. ``partner="same"``
    scores them with ``policy`` (right when the partner really plays ``policy``, e.g. the
    greedy self-play of a guessing study); any other policy may be given for the partner.

    ``likelihoods`` (optional) computes the same log-likelihoods for a whole pool at once,
    faster; it must model ``policy`` exactly (`ddzlab.agents.mcts.make_guesser` pairs the
    greedy agent with its compiled replay).
    """

    name = "policy"

    def __init__(self, policy: Policy, candidates: int = 32, base: Optional[Guesser] = None,
                 eps: float = 0.1, partner: Union[str, Policy] = "skip",
                 likelihoods: Optional[Likelihoods] = None) -> None:
        if candidates < 1:
            raise DeterminizeError(f"candidates={candidates}: need at least one")
        if not 0 < eps < 1:
            raise DeterminizeError(f"eps={eps} must lie strictly between 0 and 1")
        if isinstance(partner, str) and partner not in ("skip", "same"):
            raise DeterminizeError(f"partner={partner!r}: 'skip', 'same' or a policy")
        self.policy = policy
        self.partner = partner
        self.likelihoods = likelihoods
        self.ess_log: list[float] = []
        self.candidates = candidates
        self.base = base if base is not None else UniformGuesser()
        self.eps = eps
        self.ess = float("nan")
        self._key: Optional[tuple] = None
        self._pool: list[dict[int, int]] = []
        self._weights = np.ones(1)

    def _prob(self, obs: Observation, move: Move, policy: Policy = None) -> float:
        policy = self.policy if policy is None else policy
        legal = obs.legal_moves
        n = len(legal)
        if n <= 1:
            return 1.0
        play = getattr(policy, "play", None)
        if play is not None:
            chosen = play(obs)
            same = chosen.cards == move.cards and chosen.kind == move.kind
            return 1 - self.eps if same else self.eps / (n - 1)
        probs = policy(obs)
        for m, p in zip(legal, probs):
            if m.cards == move.cards and m.kind == move.kind:
                return max(float(p), 1e-12)
        raise DeterminizeError(f"the observed move {move} is not among the legal moves")

    def scored_seats(self, obs: Observation) -> set[int]:
        """The seats whose plays ``policy`` scores: the opponents, and the partner when
        ``partner="same"``."""
        return modelled_seats(obs, self.partner == "same")

    def log_likelihood(self, obs: Observation, hidden: dict[int, int]) -> float:
        """Log-probability of the other seats' plays in ``obs.history`` had the hidden cards
        been ``hidden``: the opponents' under ``policy``, the partner's as ``partner`` says."""
        start = start_of_play(obs, hidden)
        partner = partner_of(obs)
        model = None if self.partner == "same" else self.partner
        total = 0.0
        for seat, move in obs.history:
            if seat == partner:
                if model != "skip":
                    total += math.log(self._prob(start.observation(seat), move, model))
            elif seat != obs.seat:
                total += math.log(self._prob(start.observation(seat), move))
            start._push(seat, move)
        return total

    def pool(self, obs: Observation, rng: np.random.Generator) -> tuple[list[dict[int, int]], np.ndarray]:
        """The candidate deals of ``obs`` and their normalised weights (built from ``rng`` on
        the first call for an observation, then reused). `guess` draws one by weight; the
        compiled search draws its worlds from the same pool (`ddzlab.search.sample`)."""
        key = pool_key(obs)
        if key != self._key:
            pool = [self.base.guess(obs, rng) for _ in range(self.candidates)]
            logw = None
            if self.likelihoods is not None and isinstance(self.partner, str):
                logw = self.likelihoods(obs, pool, self.scored_seats(obs), self.eps)
            if logw is None:
                logw = np.array([self.log_likelihood(obs, h) for h in pool])
            w = np.exp(logw - logw.max())
            w /= w.sum()
            self._key, self._pool, self._weights = key, pool, w
            self.ess = float(1.0 / np.sum(w * w))
            self.ess_log.append(self.ess)
        return self._pool, self._weights

    def guess(self, obs: Observation, rng: np.random.Generator) -> dict[int, int]:
        pool, weights = self.pool(obs, rng)
        return dict(pool[int(rng.choice(len(pool), p=weights))])


class NoisyOracleGuesser:
    """A yardstick: places each hidden card with its true holder with probability ``q``.

    It must be shown the true game before each guess (``see(game)``; a search agent
    forwards ``see_all_hands`` to it, as the play loop calls that for cheaters). Every
    hidden card (each copy of a rank) is *kept* with probability ``q``, independently, and
    goes to its true holder; the cards not kept are dealt uniformly at random into the room
    left in each holder (its hidden count less its kept cards), exactly as `UniformGuesser`
    deals. The guess therefore respects every public fact: each holder's count, the cards
    played, the kitty. Its expected accuracy is ``q`` plus what the uniform deal of the
    rest gets right by chance (tests/search/test_determinize.py checks the realised accuracy
    against an independent simulation of this definition). ``q = 0`` is the uniform
    guesser; ``q = 1`` is the true deal.
    """

    name = "oracle"

    def __init__(self, q: float) -> None:
        if not 0 <= q <= 1:
            raise DeterminizeError(f"q={q} is not a probability")
        self.q = float(q)
        self._game: Optional[Game] = None

    def see(self, game: Game) -> None:
        """The true game the next guesses are made in."""
        self._game = game.copy()

    def truth(self, obs: Observation) -> dict[int, int]:
        """The true hidden cards of each holder of `hidden_sizes` at ``obs``'s point."""
        game = self._game
        if game is None or len(game.history) != len(obs.history) or game.hands[obs.seat] != obs.hand.bits:
            raise DeterminizeError("a NoisyOracleGuesser must be shown the true game (see(game)) "
                                   "at the observation's point before it guesses")
        known = known_cards(obs)
        holdings = _holdings(game)
        return {h: holdings[h] - known.get(h, 0) for h in hidden_sizes(obs)}

    def guess(self, obs: Observation, rng: np.random.Generator) -> dict[int, int]:
        true = self.truth(obs)
        kept = {}
        for h, bits in true.items():
            k = 0
            for r in range(N_SLOTS):
                n = (bits >> (4 * r)) & 15
                if n:
                    k += int(rng.binomial(n, self.q)) << (4 * r)
            kept[h] = k
        rest = obs.unseen.bits - sum(kept.values())
        room = {h: bits_size(true[h]) - bits_size(kept[h]) for h in true}
        out = deal_in_order(rest, room, rng)
        return {h: out[h] + kept[h] for h in true}


def _resume_args(obs: Observation) -> dict:
    """How `Game.resume` rebuilds a game of ``obs``'s kind (landlord mode, first bidder)."""
    three = obs.players == 3
    fixed = obs.landlord if (obs.landlord is not None and not obs.bids and three) else None
    first: Optional[int]
    if obs.bids:
        first = obs.bids[0][0]
    elif obs.phase is Phase.BIDDING:
        first = obs.to_act
    else:
        first = 0
    return dict(rules=obs.rules, landlord=fixed, first_bidder=first, players=obs.players)


def rebuild(obs: Observation, hidden: Mapping[int, int], seed: SeedLike = None,
            check: bool = False) -> Game:
    """The `Game` at ``obs``'s point in which the holders hold ``hidden`` (packed cards per
    holder of `hidden_sizes`), plus the cards `known_cards` places.

    Raises `DeterminizeError` if ``hidden`` does not deal exactly the unseen cards in the
    right numbers. ``check`` replays the history with legality checks (slower).
    """
    sizes = hidden_sizes(obs)
    if set(hidden) != set(sizes):
        raise DeterminizeError(f"a guess must deal to holders {sorted(sizes)}, not {sorted(hidden)}")
    for h, n in sizes.items():
        if bits_size(hidden[h]) != n:
            raise DeterminizeError(f"holder {h} must get {n} cards, the guess gives "
                                   f"{format_bits(hidden[h])!r}")
    total = sum(hidden.values())
    unseen = obs.unseen.bits
    if total != unseen or not all(bits_contain(unseen, b) for b in hidden.values()):
        raise DeterminizeError(f"the guess deals {format_bits(total)!r}, the unseen cards are "
                               f"{format_bits(unseen)!r}")
    known = known_cards(obs)
    lord = obs.landlord
    three = obs.players == 3
    # the kitty is shown to everyone once a three-player game has its landlord
    kitty_bits = obs.kitty.bits if obs.kitty is not None else None
    hands = []
    for s in range(obs.players):
        now = obs.hand.bits if s == obs.seat else hidden[s] + known.get(s, 0)
        start = now + obs.played_bits[s]
        if three and s == lord:
            assert kitty_bits is not None
            start -= kitty_bits              # the kitty joined this hand when bidding ended
        hands.append(start)
    if lord is not None and three:
        assert kitty_bits is not None
        kitty = kitty_bits
    else:
        kitty = hidden.get(REST, 0) if three else 0
    deal = Deal(tuple(hands), kitty)
    return Game.resume(deal, obs.history, obs.bids, seed=seed, check=check, **_resume_args(obs))


def start_of_play(obs: Observation, hidden: Mapping[int, int]) -> Game:
    """The game of ``obs`` at the start of the card play (after the bidding), had the holders
    held ``hidden`` (as `rebuild` takes it): the position its history is replayed from."""
    world = rebuild(obs, hidden, seed=0)
    return Game.resume(world.deal, (), obs.bids, seed=0, **_resume_args(obs))


#: the generator of `check_position`'s games: they are never played on, so it never draws
#: (one shared generator spares making a new one for every check)
_UNUSED_RNG = np.random.default_rng(0)


def check_position(obs: Observation) -> None:
    """Refuse ``obs`` as `determinize` does when no legal game reaches it (`DeterminizeError`,
    or the game's own error for a bad deal or history), without a generator: the unseen
    cards are dealt in rank order, since which holder gets which unseen card changes none
    of `rebuild`'s checks (the holders' sizes, the deal's, the history's turns). The
    compiled searches check their position so before trusting it. An observation a `Game`
    made (``obs.from_game``) is one game's own facts, which agree: nothing to replay."""
    if obs.from_game:
        return
    unseen = obs.unseen.bits
    order = [r for r in range(N_SLOTS) for _ in range((unseen >> (4 * r)) & 15)]
    rebuild(obs, _deal(order, hidden_sizes(obs)), seed=_UNUSED_RNG)


def determinize(obs: Observation, rng: SeedLike = None, guesser: Optional[Guesser] = None) -> Game:
    """A `Game` at ``obs``'s point with the unseen cards dealt by ``guesser`` (uniform by
    default); see the module docstring. Same seed, same sample."""
    rng = as_rng(rng)
    guesser = guesser if guesser is not None else UniformGuesser()
    hidden = guesser.guess(obs, rng)
    return rebuild(obs, hidden, seed=int(rng.integers(2**63)))


def _holdings(game: Game) -> dict[int, int]:
    rest = game.rules.deck - sum(game.hands) - sum(game.played)
    return {**dict(enumerate(game.hands)), REST: rest}


def guess_accuracy(obs: Observation, game: Game, world: Game) -> float:
    """Share of ``obs.seat``'s unseen cards that ``world`` places with the holder that
    really holds them in ``game`` (1.0 when nothing is unseen). Known cards (the
    landlord's kitty leftovers) are not counted: they are never guessed."""
    unseen = bits_size(obs.unseen.bits)
    if unseen == 0:
        return 1.0
    true, guessed = _holdings(game), _holdings(world)
    right = 0
    for h in true:
        if h == obs.seat:
            continue
        a, b = true[h], guessed[h]
        right += sum(min((a >> (4 * r)) & 15, (b >> (4 * r)) & 15) for r in range(N_SLOTS))
    right -= sum(bits_size(v) for v in known_cards(obs).values())
    return right / unseen


__all__ = ["REST", "DeterminizeError", "check_position", "Guesser", "UniformGuesser", "BombGuesser", "PolicyGuesser",
           "NoisyOracleGuesser", "partner_of", "modelled_seats", "bomb_candidates", "pool_key",
           "Policy", "Likelihoods", "determinize", "rebuild", "start_of_play", "known_cards", "hidden_sizes", "deal_in_order",
           "guess_accuracy"]
