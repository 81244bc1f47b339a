"""GreedyAgent: du-guai's greedy split with a farmer's manners, checked decision by decision."""
from ddzlab.agents import GreedyAgent, make_agent, play_game
from ddzlab.analysis import greedy_q
from ddzlab.analysis.greedy import q_value
from ddzlab.deals import generate_deals
from ddzlab.game import Game


class Checked(GreedyAgent):
    """A GreedyAgent that asserts the documented rules on every decision it makes."""

    def __init__(self, log):
        super().__init__()
        self.log = log

    def play(self, obs):
        move = super().play(obs)
        assert move in obs.legal_moves
        hand = obs.hand.bits
        empties = move.cards == hand
        if obs.last_move is None:
            best = greedy_q(obs.hand, obs.rules).max_q
            assert empties or q_value(hand, move) == best
        elif not move.is_pass and not empties:
            partner = obs.seat != obs.landlord and obs.last_seat != obs.landlord
            assert not partner, "beat its own partner"
            if move.is_bomb:
                assert obs.cards_left[obs.last_seat] <= self.bomb_when
        self.log.append((obs.last_move is None, move))
        return move


def test_greedy_decisions_follow_the_documented_rules():
    log = []
    for deal in generate_deals(25, seed=3):
        game = play_game(Game(deal, landlord=0), [Checked(log), Checked(log), Checked(log)])
        assert sum(game.scores) == 0
    leads = sum(1 for leading, _ in log if leading)
    passes = sum(1 for leading, m in log if not leading and m.is_pass)
    assert leads > 100 and passes > 100


def test_registry_and_strength_against_smallest():
    agent = make_agent("greedy")
    assert isinstance(agent, GreedyAgent)
    wins = 0
    for deal in generate_deals(40, seed=11):
        lord = play_game(Game(deal, landlord=0), [make_agent("greedy"), make_agent("smallest"),
                                                    make_agent("smallest")])
        farm = play_game(Game(deal, landlord=0), [make_agent("smallest"), make_agent("greedy"),
                                                    make_agent("greedy")])
        wins += lord.landlord_won + (not farm.landlord_won)
    assert wins > 40, f"greedy won only {wins} of 80 games against smallest"


def _answer(landlord: str, seat1: str, lead: str, **kwargs):
    """What a GreedyAgent at seat 1 (a farmer) plays after the landlord leads ``lead``."""
    from ddzlab.cards import Hand
    from ddzlab.deals import Deal
    from ddzlab.rules import STANDARD
    lord, one = Hand(landlord), Hand(seat1)
    kitty = Hand.from_ranks(lord.ranks()[-3:])
    two = Hand.from_bits(STANDARD.deck) - lord - one
    game = Game(Deal(((lord - kitty).bits, one.bits, two.bits), kitty.bits), landlord=0)
    game.play(lead)
    return str(GreedyAgent(**kwargs).play(game.observation(1)))


def test_bomb_threshold_is_inclusive():
    """A bomb is spent when the player to beat holds bomb_when (4) cards or fewer, not 5."""
    # the landlord leads a 16-card plane and keeps 4 cards: only the bomb beats it
    four_left = ("333444555666789TJQKA", "2222345677889TT9J", "333444555666789T")
    assert _answer(*four_left) == "2222"
    assert _answer(*four_left, bomb_when=3) == "pass"
    # a 15-card plane with pairs, 5 cards kept: the farmer passes unless told 5 is a threat
    five_left = ("333444555667788" "9TJQK", "2222345699TTAAJQK", "333444555667788")
    assert _answer(*five_left) == "pass"
    assert _answer(*five_left, bomb_when=5) == "2222"


# -- the survivors of `make mutation MODULE=agents/greedy` and `agents/smallest` ------
def test_greedy_explains_a_play_by_its_q_and_the_three_best():
    """After a play the greedy agent's `last_eval` is its Q and the three highest-Q plays (no
    pass), highest first; a play that empties the hand is explained as finishing."""
    from ddzlab.cards import Hand
    from ddzlab.moves import legal_moves, parse_move
    game = Game(generate_deals(1, seed=3)[0], landlord=0)
    agent = GreedyAgent()
    move = agent.play(game.observation(0))
    hand = game.hands[0]
    plays = [m for m in game.legal_moves() if not m.is_pass]
    best3 = sorted(plays, key=lambda m: -q_value(hand, m))[:3]
    assert agent.last_eval["q"] == q_value(hand, move)
    assert list(agent.last_eval["top"]) == [str(m) for m in best3]
    assert list(agent.last_eval["top"].values()) == sorted(agent.last_eval["top"].values(), reverse=True)
    last = Hand("77")
    from ddzlab.agents.greedy import greedy_eval
    assert greedy_eval(last.bits, legal_moves(last), parse_move("77")) == {"finishes": True}
    assert greedy_eval(last.bits, legal_moves(last), parse_move("7")) == {"q": q_value(last.bits, parse_move("7")),
                                                                         "top": {"77": q_value(last.bits, parse_move("77")),
                                                                                 "7": q_value(last.bits, parse_move("7"))}}


def test_smallest_replies_without_a_bomb_when_it_can_and_never_passes_when_it_can_play():
    from ddzlab.agents.smallest import SmallestAgent
    from ddzlab.cards import Hand
    from ddzlab.moves import legal_moves, parse_move
    agent = SmallestAgent()
    for hand, to_beat, expect in (("333366", "55", "66"),        # the pair, not the lower bomb
                                  ("4444BR", "3333", "4444"),    # a bomb before the rocket
                                  ("2222BR", "K", "2")):         # a single before bombs and rocket
        legal = legal_moves(Hand(hand), to_beat=parse_move(to_beat))
        obs = type("Obs", (), {"legal_moves": legal})()            # the agent reads only legal_moves
        assert agent.play(obs) == parse_move(expect), (hand, to_beat)
