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
