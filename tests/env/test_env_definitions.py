"""The environments' definitions worked out by hand: DouZero's 54-slot card vector and its
history matrix, every block of the compact encoding (`COMPACT_LAYOUT`) at a position read off
the deal, the action numbering of a `Table` (moves, then bids) and the move index's inverse
pair. The expected values come from the layout's definitions, not from the encoder."""
from __future__ import annotations

import numpy as np
import pytest

from ddzlab.cards import Hand
from ddzlab.deals import generate_deals
from ddzlab.env.encode import COMPACT_LAYOUT, compact_obs, douzero_cards, douzero_obs, douzero_z
from ddzlab.env.index import MoveIndex, move_index
from ddzlab.env.table import DOUZERO_SIZES, EnvError, Table, check_seed
from ddzlab.errors import IllegalMoveError, OutOfTurnError, SeedError
from ddzlab.game import Game
from ddzlab.moves import PASS, parse_move

RANKS = "3456789TJQKA2BR"


def blocks(v: np.ndarray) -> dict[str, np.ndarray]:
    """The compact vector cut into its named blocks."""
    out, at = {}, 0
    for name, n in COMPACT_LAYOUT:
        out[name] = v[at:at + n]
        at += n
    assert at == len(v)
    return out


def counts(text: str) -> list[float]:
    """Per-rank counts 3..R of cards written as text ('' for none)."""
    return [float(text.count(r)) for r in RANKS]


def test_douzero_card_vector_by_hand():
    v = douzero_cards(Hand("33JJJ2BR").bits)
    want = np.zeros(54, np.int8)
    want[[0, 1]] = 1                    # two 3s: the first two of rank 3's four slots
    want[[32, 33, 34]] = 1              # three jacks (rank 8: slots 32..35)
    want[48] = 1                        # one 2 (rank 12: slots 48..51)
    want[52] = want[53] = 1             # black joker, red joker
    np.testing.assert_array_equal(v, want)
    assert v.dtype == np.int8
    np.testing.assert_array_equal(douzero_cards(Hand("AAAA").bits)[44:48], [1, 1, 1, 1])
    assert douzero_cards(Hand("R").bits).tolist() == [0] * 53 + [1]
    assert douzero_cards(0).sum() == 0


def test_douzero_history_is_the_last_15_actions_oldest_first_zero_padded():
    g = Game(generate_deals(1, seed=0)[0], landlord=0)
    first = g.legal_moves()[0]                       # a lead of the landlord
    g.play(first)
    g.play("pass")
    z = douzero_z(g.observation(2))
    assert z.shape == (5, 162) and z.dtype == np.int8
    flat = z.ravel()
    assert flat[:13 * 54].sum() == 0                 # 13 empty actions in front
    np.testing.assert_array_equal(flat[13 * 54:14 * 54], douzero_cards(first.cards))
    assert flat[14 * 54:].sum() == 0                 # the pass is zeros
    while len(g.history) < 20 and not g.is_over:     # more than 15 actions: only the last 15
        g.play(g.legal_moves()[-1])
    seat = g.to_act if g.to_act is not None else 0
    rows = douzero_z(g.observation(seat)).reshape(15, 54)
    for row, (_, m) in zip(rows, g.history[-15:]):
        np.testing.assert_array_equal(row, douzero_cards(m.cards))


def test_douzero_farmer_features_by_hand():
    """A farmer's x_no_action: hand, other hands, the landlord's and the teammate's played
    cards, the move to beat, their last actions, cards left (20 and 17 one-hots), bombs."""
    deal = generate_deals(1, seed=3)[0]
    g = Game(deal, landlord=0)
    lead = g.legal_moves()[0]
    g.play(lead)                                          # the landlord leads
    obs = g.observation(1)                                # landlord_down; its teammate is seat 2
    x = douzero_obs(obs)["x_no_action"]
    assert x.shape == (430,) and x.dtype == np.int8
    hand = obs.hand.bits
    other = Hand("3333444455556666777788889999TTTTJJJJQQQQKKKKAAAA2222BR").bits - hand - lead.cards
    parts = [douzero_cards(hand), douzero_cards(other), douzero_cards(lead.cards), np.zeros(54),
             douzero_cards(lead.cards), douzero_cards(lead.cards), np.zeros(54)]
    left_lord = np.zeros(20)
    left_lord[20 - lead.size - 1] = 1                     # one-hot of n at index n - 1
    left_mate = np.zeros(17)
    left_mate[16] = 1
    no_bombs = np.zeros(15)
    no_bombs[0] = 1
    np.testing.assert_array_equal(x, np.concatenate(parts + [left_lord, left_mate, no_bombs]))
    d = douzero_obs(obs)
    assert d["position"] == "landlord_down" and d["x_batch"].shape == (len(obs.legal_moves), 484)
    for j, m in enumerate(obs.legal_moves):
        np.testing.assert_array_equal(d["x_batch"][j, 430:], douzero_cards(m.cards))
        np.testing.assert_array_equal(d["x_batch"][j, :430], x)
    assert d["z_batch"].shape == (len(obs.legal_moves), 5, 162) and d["z_batch"].dtype == np.float32


def test_compact_blocks_of_a_farmer_after_a_lead_and_a_pass():
    deal = generate_deals(1, seed=7)[0]
    g = Game(deal, landlord=0)
    lead = g.legal_moves()[0]                             # the landlord's first lead
    g.play(lead)
    g.play("pass")                                        # landlord_down passes
    b = blocks(compact_obs(g.observation(2)))             # landlord_up: next = 0 (landlord), prev = 1
    mine = str(Hand.from_bits(deal.hands[2]))
    kitty = str(Hand.from_bits(deal.kitty))
    played = str(lead)
    full = "3333444455556666777788889999TTTTJJJJQQQQKKKKAAAA2222BR"
    assert b["hand"].tolist() == counts(mine)
    assert b["unseen"].tolist() == [f - m - p for f, m, p in zip(counts(full), counts(mine), counts(played))]
    assert b["kitty"].tolist() == counts(kitty)
    assert b["played_me"].tolist() == counts("") and b["played_prev"].tolist() == counts("")
    assert b["played_next"].tolist() == counts(played)
    assert b["last_next"].tolist() == counts(played) and b["last_me"].sum() == b["last_prev"].sum() == 0
    assert b["to_beat"].tolist() == counts(played)
    assert b["passed"].tolist() == [0, 0, 1]
    assert b["cards_left"].tolist() == pytest.approx([17 / 20, (20 - lead.size) / 20, 17 / 20])
    assert b["role"].tolist() == [0, 0, 1, 0]             # up
    assert b["landlord"].tolist() == [0, 1, 0]            # the next seat
    assert b["bids"].tolist() == [0, 0, 0]                # no bidding
    assert b["bid"].tolist() == pytest.approx([1 / 3]) and b["bombs"].tolist() == [0]
    assert b["phase"].tolist() == [0] and b["leading"].tolist() == [0]
    lord = blocks(compact_obs(g.observation(0)))          # the landlord: prev passed, next not yet
    assert lord["role"].tolist() == [1, 0, 0, 0] and lord["landlord"].tolist() == [1, 0, 0]
    assert lord["passed"].tolist() == [0, 1, 0] and lord["last_me"].tolist() == counts(played)
    down = blocks(compact_obs(g.observation(1)))
    assert down["role"].tolist() == [0, 1, 0, 0] and down["landlord"].tolist() == [0, 0, 1]


def test_compact_bombs_block_is_the_bombs_and_rockets_played_over_four():
    deal = next(d for d in generate_deals(200, seed=11)                 # a landlord that can lead a bomb
                if any(m.is_bomb for m in Game(d, landlord=0).legal_moves()))
    g = Game(deal, landlord=0)
    g.play(next(m for m in g.legal_moves() if m.is_bomb))
    for seat in range(3):                                               # public: the same in every view
        assert blocks(compact_obs(g.observation(seat)))["bombs"].tolist() == [1 / 4]


def test_compact_blocks_while_bidding():
    g = Game(generate_deals(1, seed=7)[0])                # bidding from seat 0
    g.make_bid(1)
    g.make_bid(0)
    b = blocks(compact_obs(g.observation(2)))
    assert b["bids"].tolist() == pytest.approx([0, 2 / 4, 1 / 4])   # me none yet; next bid 1; prev passed
    assert b["bid"].tolist() == pytest.approx([1 / 3])
    assert b["role"].tolist() == [0, 0, 0, 1] and b["landlord"].sum() == 0
    assert b["phase"].tolist() == [1] and b["leading"].tolist() == [0]
    assert b["kitty"].sum() == 0 and b["cards_left"].tolist() == pytest.approx([17 / 20] * 3)


def test_compact_leading_and_bombs():
    g = Game(generate_deals(1, seed=7)[0], landlord=0)
    b = blocks(compact_obs(g.observation(0)))
    assert b["leading"].tolist() == [1] and b["to_beat"].sum() == 0 and b["passed"].sum() == 0
    assert b["cards_left"].tolist() == pytest.approx([1.0, 17 / 20, 17 / 20])


def test_actions_are_moves_then_bids():
    t = Table("standard", bidding=True)
    n = len(move_index("standard"))
    assert (t.n_moves, t.n_actions) == (n, n + 4)
    assert t.describe(0) == "pass" and t.describe(n) == "pass (bidding)" and t.describe(n + 3) == "bid 3"
    assert t.describe(move_index("standard").index_of("33")) == "33"
    assert t.agents == ("player_0", "player_1", "player_2")
    fixed = Table("mini")
    assert fixed.n_actions == len(move_index("mini")) and fixed.agents == ("landlord", "landlord_down", "landlord_up")
    g = Game(generate_deals(1, seed=1)[0])
    legal = t.legal(g)
    assert legal == {n + b: b for b in g.legal_bids()}
    mask = t.mask(legal)
    assert mask.dtype == np.int8 and mask.sum() == len(legal) and mask[:n].sum() == 0
    assert t.mask({}).sum() == 0 and len(t.mask({})) == n + 4
    t.apply(g, n + 2, legal)
    assert g.bid == 2
    with pytest.raises(OutOfTurnError):
        t.apply(g, n + 3, t.legal(g), seat=0)            # seat 1 is to act
    assert g.bid == 2
    with pytest.raises(IllegalMoveError, match="masked out"):
        t.apply(g, n + 1, t.legal(g))                    # a bid of 1 no longer raises the bid
    with pytest.raises(IllegalMoveError, match="outside the action space"):
        t.apply(g, n + 4, t.legal(g))
    with pytest.raises(IllegalMoveError, match="integer index"):
        t.apply(g, True, t.legal(g))
    t.apply(g, np.array(n + 3), t.legal(g))              # a 0-d array is its value
    assert g.bid == 3


def test_table_settings_and_sizes():
    assert Table("standard").obs_size(1) == 170
    dz = Table("standard", encoding="douzero")
    assert [dz.obs_size(s) for s in range(3)] == [DOUZERO_SIZES["landlord"], DOUZERO_SIZES["landlord_down"],
                                                  DOUZERO_SIZES["landlord_up"]] == [1129, 1240, 1240]
    for kwargs, match in [({"reward": "x"}, "unknown reward"), ({"encoding": "x"}, "unknown encoding"),
                          ({"encoding": "douzero", "bidding": True}, "card play only")]:
        with pytest.raises(EnvError, match=match):
            Table("standard", **kwargs)
    assert check_seed(None) is None and check_seed(np.int64(3)) == 3 and check_seed(0) == 0
    for bad in (-1, True, 1.0, "1", np.bool_(True)):
        with pytest.raises(SeedError):
            check_seed(bad)


def test_rewards_by_definition():
    for seed in range(20):
        g = Game(generate_deals(1, seed=seed)[0], landlord=0)
        while not g.is_over:
            g.play(g.legal_moves()[-1])
        lord_won = g.winner == 0
        unit = float(2 ** g.bombs)
        assert Table("standard", reward="wp").rewards(g) == ((1.0, -1.0, -1.0) if lord_won else (-1.0, 1.0, 1.0))
        assert Table("standard", reward="adp").rewards(g) == tuple(
            u * unit for u in ((1, -1, -1) if lord_won else (-1, 1, 1)))
        assert Table("standard", reward="score").rewards(g) == tuple(float(s) for s in g.scores)
    assert Table().rewards(Game(generate_deals(1, seed=0)[0], landlord=0)) == (0.0, 0.0, 0.0)


def test_render_names_the_position():
    t = Table("standard")
    g = Game(generate_deals(1, seed=0)[0], landlord=0)
    lead = g.legal_moves()[0]
    g.play(lead)
    text = t.render(g)
    assert text.splitlines()[0] == "standard rules, play, bombs 0, bid 1"
    assert f"to beat: {lead} by landlord" in text and "landlord_down: " in text
    assert text.splitlines()[2].endswith("<- to act") and "(" not in text.splitlines()[1]
    assert t.show(None, "ansi") is None and t.show(g, "ansi") == text


def test_the_move_index_inverts_and_refuses_what_it_does_not_hold():
    ix = move_index("mini")
    assert isinstance(ix, MoveIndex) and move_index("mini") is ix          # built once
    assert ix.index_of("pass") == 0 and ix.moves[0] == PASS and PASS in ix
    m = parse_move("9", ix.rules)                         # the mini deck runs 9 .. 2 and the jokers
    i = ix.index_of(m)
    assert ix.move(i) == m and ix.move(np.int64(i)) == m and ix.index_of("9") == i
    assert ix.indices([PASS, m]) == [0, i]
    mask = ix.mask([PASS, m])
    assert mask.dtype == np.int8 and mask.sum() == 2 and mask[0] == mask[i] == 1
    for bad in (-1, len(ix), 1.0, "1"):
        with pytest.raises(IllegalMoveError, match="not an index"):
            ix.move(bad)
    with pytest.raises(IllegalMoveError, match=rf"mini move index \(0\.\.{len(ix) - 1}\)$"):   # the valid range
        ix.move(len(ix))
    with pytest.raises(IllegalMoveError):
        ix.index_of(parse_move("3", "standard"))          # a move of another deck
    assert "x" not in ix
    line = ix.text.splitlines()[i]
    assert line == f"{i} {m.kind.name} {m.rank} {m.length} {m}"
    keys = [(int(mv.kind), mv.length, mv.rank, mv.cards) for mv in ix.moves]
    assert keys == sorted(keys) and len(set(ix.moves)) == len(ix)
    frame = ix.table()
    assert list(frame.columns) == ["move", "kind", "rank", "length", "cards"] and len(frame) == len(ix)
    assert frame.iloc[i].tolist() == [str(m), m.kind.name, m.rank_char, m.length, m.size]


def test_only_the_agent_to_act_has_legal_actions():
    from ddzlab.env import DouDizhuEnv
    env = DouDizhuEnv("mini")
    env.reset(seed=2)
    acting = env.agent_selection
    assert acting == "landlord"                                   # a fixed landlord leads
    table = Table("mini")
    want = table.mask(table.legal(env.game))
    assert want.sum() > 0
    np.testing.assert_array_equal(env.observe(acting)["action_mask"], want)
    for other in ("landlord_down", "landlord_up"):
        assert env.observe(other)["action_mask"].sum() == 0


@pytest.mark.parametrize("seat, doubled", [("landlord", 2), ("landlord_down", 1), ("landlord_up", 1)])
def test_a_forfeit_at_score_costs_the_landlord_double(seat, doubled):
    """``illegal="lose"`` with the ``score`` reward: the learner loses bid × 2^bombs, the
    landlord twice that (its points count twice in `Game.scores`)."""
    from ddzlab.env import SingleSeatEnv
    env = SingleSeatEnv("standard", seat=seat, reward="score", illegal="lose")
    obs, _ = env.reset(seed=4)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    game = env.game
    want = -float(2 ** game.bombs) * max(game.bid, 1) * doubled
    _, reward, over, _, _ = env.step(illegal)
    assert over and reward == want
