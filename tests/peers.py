"""Adapters to the peer engines used as oracles (DouZero's move generator and detector),
and `require_peer`, which turns a missing peer into a failure in CI.

Policy: a test that needs a peer calls ``require_peer(module, how_to_install)``. When the peer
is missing the test FAILS if the environment variable ``CI`` is set (CI runs ``.ci/run`` with
``CI=true``; ``make test`` installs every peer, so a missing one there is a broken install
step, not a reason to go green) or ``DDZLAB_REQUIRE_PEERS=1``; otherwise, on a developer's
machine without the ``peers`` extra, it is skipped with the install command in the reason.
"""
from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

from ddzlab.cards import Hand

#: how to install DouZero without its torch dependency (its env modules need only numpy)
DOUZERO_INSTALL = "pip install --no-deps douzero==1.1.0"
RLCARD_INSTALL = "pip install 'ddzlab[peers]'  (rlcard==1.2.0)"


def peers_required() -> bool:
    """Whether a missing peer must fail the run: in CI (``CI`` set, not 0/false) or when
    ``DDZLAB_REQUIRE_PEERS=1``."""
    ci = os.environ.get("CI", "").strip().lower()
    return ci not in ("", "0", "false", "no") or os.environ.get("DDZLAB_REQUIRE_PEERS") == "1"


def require_peer(module: str, install: str) -> ModuleType:
    """Import ``module`` for a test; if it is missing, fail in CI and skip elsewhere."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        message = f"peer {module} is missing ({e}); install it with: {install}"
        if peers_required():
            pytest.fail(message + " -- peers are required when CI is set", pytrace=False)
        pytest.skip(message)

#: DouZero's card codes for ddzlab ranks 0..14
DOUZERO_CODES = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30]


def to_douzero(bits: int) -> list[int]:
    return [DOUZERO_CODES[r] for r in Hand.from_bits(bits).ranks()]


def douzero_leading(hand: Hand) -> set[tuple[int, ...]]:
    """DouZero's leading moves as sorted code tuples, less the ones its detector calls WRONG."""
    from douzero.env import move_detector as md
    from douzero.env.move_generator import MovesGener
    out = set()
    for move in MovesGener(to_douzero(hand.bits)).gen_moves():
        move = sorted(move)
        if md.get_move_type(move)["type"] != md.TYPE_15_WRONG:
            out.add(tuple(move))
    return out


def douzero_following(hand: Hand, rival: list[int]) -> set[tuple[int, ...]]:
    """DouZero's GameEnv reply set (its `get_legal_card_play_actions` logic) to ``rival``."""
    from douzero.env import move_detector as md
    from douzero.env import move_selector as ms
    from douzero.env.move_generator import MovesGener
    mg = MovesGener(to_douzero(hand.bits))
    info = md.get_move_type(rival)
    kind, length = info["type"], info.get("len", 1)
    gens = {
        md.TYPE_1_SINGLE: (mg.gen_type_1_single, ms.filter_type_1_single),
        md.TYPE_2_PAIR: (mg.gen_type_2_pair, ms.filter_type_2_pair),
        md.TYPE_3_TRIPLE: (mg.gen_type_3_triple, ms.filter_type_3_triple),
        md.TYPE_4_BOMB: (lambda: mg.gen_type_4_bomb() + mg.gen_type_5_king_bomb(), ms.filter_type_4_bomb),
        md.TYPE_6_3_1: (mg.gen_type_6_3_1, ms.filter_type_6_3_1),
        md.TYPE_7_3_2: (mg.gen_type_7_3_2, ms.filter_type_7_3_2),
        md.TYPE_8_SERIAL_SINGLE: (lambda: mg.gen_type_8_serial_single(length), ms.filter_type_8_serial_single),
        md.TYPE_9_SERIAL_PAIR: (lambda: mg.gen_type_9_serial_pair(length), ms.filter_type_9_serial_pair),
        md.TYPE_10_SERIAL_TRIPLE: (lambda: mg.gen_type_10_serial_triple(length), ms.filter_type_10_serial_triple),
        md.TYPE_11_SERIAL_3_1: (lambda: mg.gen_type_11_serial_3_1(length), ms.filter_type_11_serial_3_1),
        md.TYPE_12_SERIAL_3_2: (lambda: mg.gen_type_12_serial_3_2(length), ms.filter_type_12_serial_3_2),
        md.TYPE_13_4_2: (mg.gen_type_13_4_2, ms.filter_type_13_4_2),
        md.TYPE_14_4_22: (mg.gen_type_14_4_22, ms.filter_type_14_4_22),
    }
    moves: list[list[int]] = []
    if kind in gens:
        gen, keep = gens[kind]
        moves = keep(gen(), rival)
    if kind not in (md.TYPE_4_BOMB, md.TYPE_5_KING_BOMB):
        moves = moves + mg.gen_type_4_bomb() + mg.gen_type_5_king_bomb()
    moves.append([])
    return {tuple(sorted(m)) for m in moves if not m or md.get_move_type(sorted(m))["type"] != md.TYPE_15_WRONG}


def rlcard_leading(hand: Hand) -> set[str]:
    """RLCard 1.2.0's leading moves (its judger's playable set) as card strings."""
    from rlcard.games.doudizhu.judger import DoudizhuJudger
    return set(DoudizhuJudger.playable_cards_from_hand(str(hand)))


def rlcard_following(hand: Hand, target: str) -> list[str]:
    """RLCard 1.2.0's replies to ``target`` (its `get_gt_cards`, in its order, pass first)."""
    from types import SimpleNamespace

    from rlcard.games.base import Card
    from rlcard.games.doudizhu.utils import get_gt_cards
    cards = [Card({"B": "BJ", "R": "RJ"}[c], "") if c in "BR" else Card("S", c) for c in str(hand)]
    return get_gt_cards(SimpleNamespace(current_hand=cards), SimpleNamespace(played_cards=target))
