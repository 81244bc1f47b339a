"""Interactive widgets (ipywidgets) for notebooks and Voilà: `HandInspector` and `GameReplay`.

`HandInspector` shows what the lab knows about one hand: its cards, every legal move
(filterable by kind, optionally as replies to a move to beat), the fewest plays with an
optimal split, the best homework score, the hand power with its split and hints, the seed
SVM's bidding call with its decision value, and what each registered agent would play if
this hand led (with the agent's own evaluation, `ddzlab.agents.base.Evaluating`).
A hand is entered by rank buttons, as text, or dealt at random from a seed.

Cheap parts (cards, moves, and for hands up to ``sync_cards`` cards the fewest plays and
the power) are computed at once and cached; the rest (best score, bidding model, agents,
and every search on a bigger hand) runs in one background thread while the output shows
"computing…", so the page never freezes; a stale result (the hand changed meanwhile) is
dropped. Searches beyond a size bound are refused with a note instead of started.
Bad input (text, move to beat, a hand the chosen rules cannot hold) shows the engine's
error message and changes nothing.

`GameReplay` steps through a recorded game (`ddzlab.records`): forward, back, or jump
with the slider; all hands or one seat's view; bids, trick history, multiplier, and each
agent's evaluation of its move where the record has one.

Both are plain objects with the ipywidgets as attributes (``.text``, ``.fewest_html``...),
so tests drive them without a browser; display one by leaving it last in a cell.

>>> insp = HandInspector("33445566789TJQKA2BR", rules="homework", background=False)
>>> insp.fewest.plays, insp.fewest_html.value.count("ddz-play")
(4, 4)
>>> insp.text.value = "33Z"                                # a typo: nothing changes
>>> insp.error.value.startswith('<span class="ddz-error">unknown card symbol'), str(insp.hand)
(True, '33445566789TJQKA2BR')
"""
from __future__ import annotations

import html
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

import ipywidgets as W

from .agents.base import agent_name, available_agents, last_evaluation, make_agent
from .analysis import best_score, hand_power, hints, min_plays
from .cards import N_RANKS, RANK_CHARS, Hand, bits_contain, bits_size, pack, parse_counts, unpack
from .deals import as_rng
from .errors import DdzError, RulesError
from .game import Game, Observation, Phase
from .moves import Move, check_move, legal_moves, parse_move
from .records import GameRecord, read_records
from .rules import RULESETS, Kind, Rules, get_rules

ALL = "all"          # the "every kind" / "every seat" choice of a dropdown (None shows blank)
#: what the hand-power numbers mean (the same words as `ddzlab solve`)
POWER_NOTE = ("Power: the sum of each play's weight, less 150 per play, over the best split "
              "(penkzhou/DouDiZhu's weights): higher is stronger, most hands score below 0. "
              "Hints: the plays to lead or answer with, best first; in brackets the power of the "
              "cards left after the play.")
BUSY = '<span class="ddz-busy">⏳ computing…</span>'
_CSS = ("<style>.ddz-c{display:inline-block;min-width:1.3em;padding:2px 3px;margin:1px;"
        "border:1px solid #888;border-radius:4px;background:#fff;text-align:center;"
        "font-family:monospace;font-weight:bold}.ddz-red{color:#c0392b}"
        ".ddz-error{color:#c0392b;font-weight:bold}.ddz-kind{color:#666;font-size:85%;margin-left:4px}"
        ".ddz-note{color:#666;font-size:90%}.ddz-move{display:inline-block;margin:2px 10px 2px 0}"
        ".ddz-agent-table td{padding:2px 12px 2px 0;vertical-align:top}</style>")


# -- rendering helpers -------------------------------------------------------------------
def cards_html(cards: Union[int, Hand, Move, str]) -> str:
    """Cards as small boxes (red joker in red); ``pass`` for an empty move."""
    if isinstance(cards, Move):
        if cards.is_pass:
            return '<span class="ddz-pass">pass</span>'
        cards = cards.cards
    text = str(Hand.from_bits(cards)) if isinstance(cards, int) else str(Hand(cards))
    if not text:
        return '<span class="ddz-note">(no cards)</span>'
    return "".join(f'<span class="ddz-c{" ddz-red" if ch == "R" else ""}">{ch}</span>' for ch in text)


def split_html(moves: Sequence[Move]) -> str:
    """One row of cards per play, with its kind."""
    return "".join(f'<div class="ddz-play">{cards_html(m)}<span class="ddz-kind">{m.kind.label}</span></div>'
                   for m in moves)


def _eval_text(ev: Optional[dict]) -> str:
    if not ev:
        return ""
    parts = []
    for k, v in ev.items():
        if isinstance(v, dict):
            v = ", ".join(f"{a}: {b}" for a, b in v.items())
        elif isinstance(v, float):
            v = f"{v:.3g}"
        parts.append(f"{k} = {v}")
    return html.escape("; ".join(parts))


def _err(e: Exception) -> str:
    return f'<span class="ddz-error">{html.escape(str(e))}</span>'


# -- cached analysis ---------------------------------------------------------------------
@lru_cache(maxsize=512)
def _legal(bits: int, rules: Rules, to_beat: Optional[Move]) -> tuple[Move, ...]:
    return tuple(legal_moves(Hand.from_bits(bits), rules, to_beat))


@lru_cache(maxsize=512)
def _fewest(bits: int, rules: Rules):
    return min_plays(Hand.from_bits(bits), rules)


@lru_cache(maxsize=256)
def _power(bits: int, rules: Rules):
    return hand_power(Hand.from_bits(bits), rules)


@lru_cache(maxsize=256)
def _hints(bits: int, rules: Rules, to_beat: Optional[Move]) -> tuple:
    return tuple(hints(Hand.from_bits(bits), to_beat, rules)[:5])


@lru_cache(maxsize=256)
def _score(bits: int, rules: Rules):
    return best_score(Hand.from_bits(bits), rules)


@lru_cache(maxsize=256)
def _bidding(bits: int) -> float:
    from .bidding.models import seed_svm
    from .bidding.data import hands_frame, natural_readings
    return float(seed_svm().decision_function(hands_frame(natural_readings(Hand.from_bits(bits)))).max())


def leading_observation(bits: int, rules: Rules, to_beat: Optional[Move] = None) -> Observation:
    """A one-seat view in which this hand is the landlord's (seat 0) and must lead, or
    answer ``to_beat`` played by the up farmer (seat 2); every other card of the deck is
    unseen, split evenly between the farmers. A hand of a landlord's size (20 standard cards)
    shows its three highest cards as the kitty, so that agents which deal the unseen cards
    (MCTS) see a position that can arise; other sizes show no kitty. Raises `RulesError` if ``to_beat`` needs cards the hand holds."""
    unseen = rules.deck - bits
    beat = 0 if to_beat is None or to_beat.is_pass else to_beat.cards
    if not bits_contain(unseen, beat):
        raise RulesError(f"the move to beat ({to_beat}) uses cards this hand holds")
    left = bits_size(unseen) - bits_size(beat)
    kitty = 0
    if bits_size(bits) == rules.hand_size + rules.kitty_size:   # a dealt landlord hand: its top
        kitty = Hand.from_ranks(Hand.from_bits(bits).ranks()[-rules.kitty_size:]).bits  # cards as kitty
    history = ((2, to_beat),) if to_beat is not None and beat else ()   # (beat: a move, not a pass)
    return Observation(
        seat=0, role="landlord", phase=Phase.PLAY, rules=rules, players=3, hand=Hand.from_bits(bits),
        landlord=0, kitty=Hand.from_bits(kitty), bids=(), bid=1, history=history,
        cards_left=(bits_size(bits), left // 2, left - left // 2), played_bits=(0, 0, beat),
        last_move=to_beat if beat else None, last_seat=2 if beat else None, to_act=0, bombs=0,
        legal_moves=_legal(bits, rules, to_beat if beat else None), legal_bids=())


# -- the hand inspector -------------------------------------------------------------------
class HandInspector:
    """What the lab knows about one hand (module docstring).

    ``hand``: initial cards (text or `Hand`); ``rules``: rule set name or `Rules`;
    ``seed``/``size``: of the "deal random" button; ``agents``: agent names to ask (default:
    every registered agent); ``background=False`` computes everything before returning
    (for scripts and doctests). Above ``max_power_cards`` (hand power, hints),
    ``max_score_cards`` (best score) and ``max_agent_cards`` (the agents, which never meet
    bigger hands in a game) cards a panel is refused with a note, not started: every panel
    finishes in seconds. A newer input cancels the panels still waiting for the old one, and
    `close` stops the background worker (no work outlives the inspector).
    """

    def __init__(self, hand: Union[str, Hand] = "", rules: Union[str, Rules] = "standard", *,
                 seed: int = 0, size: Optional[int] = None, agents: Optional[Sequence[str]] = None,
                 background: bool = True, sync_cards: int = 20, max_power_cards: int = 30,
                 max_score_cards: int = 40, max_agent_cards: int = 20) -> None:
        self.rules = get_rules(rules)
        self.bits = 0
        self.to_beat: Optional[Move] = None
        self.background = background
        self.sync_cards, self.max_power_cards, self.max_score_cards = sync_cards, max_power_cards, max_score_cards
        self.max_agent_cards = max_agent_cards
        self.agent_names = list(agents) if agents is not None else None
        self.fewest = self.power = self.score = None
        self.bid_value: Optional[float] = None
        self.agent_moves: dict[str, Union[Move, Exception]] = {}   # an agent's move, or why it has none
        self._gen = 0
        self._lock = threading.Lock()
        self._pool: Optional[ThreadPoolExecutor] = None
        self._future: Optional[Future] = None
        self._quiet = False

        self.rules_box = W.Dropdown(options=list(RULESETS), value=self.rules.name, description="rules")
        self.text = W.Text(placeholder="cards, e.g. 33445566789TJQKA2BR", description="hand",
                           continuous_update=False, layout=W.Layout(width="420px"))
        self.text.add_class("ddz-hand-text")
        self.seed_box = W.IntText(value=seed, description="seed", layout=W.Layout(width="160px"))
        self.size_box = W.BoundedIntText(value=size or self.rules.hand_size + self.rules.kitty_size,
                                         min=1, max=54, description="cards", layout=W.Layout(width="160px"))
        self.deal_button = W.Button(description="deal random")
        self.deal_button.add_class("ddz-deal")
        self.clear_button = W.Button(description="clear")
        self.rank_buttons = []
        for r in range(N_RANKS):
            b = W.Button(description=RANK_CHARS[r], layout=W.Layout(width="52px"),
                         tooltip=f"add a {RANK_CHARS[r]} (after the last copy: back to none)")
            b.add_class(f"ddz-rank-{RANK_CHARS[r]}")
            b.on_click(lambda _b, r=r: self.click_rank(r))
            self.rank_buttons.append(b)
        self.error = W.HTML()
        self.error.add_class("ddz-error-box")
        self.hand_html = W.HTML()
        self.hand_html.add_class("ddz-hand")
        self.kind_box = W.Dropdown(options=[("all", ALL)], value=ALL, description="kind")
        self.beat_text = W.Text(placeholder="e.g. 77 or 34567 (empty: lead)", description="to beat",
                                continuous_update=False)
        self.beat_text.add_class("ddz-beat-text")
        self.moves_html = W.HTML()
        self.moves_html.add_class("ddz-moves")
        self.fewest_html = W.HTML()
        self.fewest_html.add_class("ddz-fewest")
        self.score_html = W.HTML()
        self.score_html.add_class("ddz-score")
        self.power_html = W.HTML()
        self.power_html.add_class("ddz-power")
        self.bid_html = W.HTML()
        self.bid_html.add_class("ddz-bid")
        self.agents_html = W.HTML()
        self.agents_html.add_class("ddz-agents")

        self.rules_box.observe(self._on_rules, names="value")
        self.text.observe(lambda ch: self.set_text(ch["new"]), names="value")
        self.beat_text.observe(lambda ch: self.set_to_beat(ch["new"]), names="value")
        self.kind_box.observe(lambda ch: self._show_moves(), names="value")
        self.deal_button.on_click(lambda _b: self.deal_random())
        self.clear_button.on_click(lambda _b: self.set_bits(0))

        def section(title: str, *children: W.Widget) -> W.VBox:
            return W.VBox([W.HTML(f"<b>{title}</b>"), *children])

        column = W.Layout(width="32%", margin="0 1% 0 0")
        self.widget = W.VBox([
            W.HTML(_CSS),
            W.HBox([self.rules_box, self.text]),
            W.HBox([self.seed_box, self.size_box, self.deal_button, self.clear_button]),
            W.HBox(self.rank_buttons[:8]), W.HBox(self.rank_buttons[8:]),
            self.error, self.hand_html,
            W.HBox([W.VBox([W.HTML("<b>Fewest plays</b>"), self.fewest_html], layout=column),
                    W.VBox([W.HTML("<b>Best homework score</b>"), self.score_html], layout=column),
                    W.VBox([W.HTML("<b>Hand power</b>"), self.power_html], layout=column)]),
            section("Bidding model (seed SVM)", self.bid_html),
            section("Legal moves", W.HBox([self.kind_box, self.beat_text]), self.moves_html),
            section("What the agents would play (this hand leads as landlord)", self.agents_html),
        ])
        self.widget.add_class("ddz-inspector")
        if hand:
            self.set_text(str(hand) if isinstance(hand, Hand) else hand)
        else:
            self._refresh()

    # -- display ----------------------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    @property
    def hand(self) -> Hand:
        return Hand.from_bits(self.bits)

    # -- input ------------------------------------------------------------------------
    def _fail(self, e: Exception) -> bool:
        self.error.value = _err(e)
        return False

    def set_bits(self, bits: int, rules: Optional[Rules] = None) -> bool:
        """Show this hand (packed); False (and the error shown) if the rules cannot hold it."""
        rules = rules or self.rules
        try:
            rules.check_hand(bits)
        except DdzError as e:
            return self._fail(e)
        to_beat, note = self.to_beat, ""
        if to_beat is not None:
            try:
                check_move(to_beat, rules, "the move to beat")
            except DdzError as e:
                note = f'<span class="ddz-note">{html.escape(str(e))}: cleared</span>'
                to_beat = None
        self.bits, self.rules, self.to_beat = bits, rules, to_beat
        self.error.value = note
        self._refresh()
        return True

    def set_text(self, text: str) -> bool:
        """Parse card text; on a typo show the engine's message and keep the current hand."""
        if self._quiet:
            return True
        try:
            bits = pack(parse_counts(text))
        except DdzError as e:
            return self._fail(e)
        return self.set_bits(bits)

    def set_to_beat(self, text: str) -> bool:
        """The move to answer (empty: lead); a non-combination shows its error, changes nothing."""
        if self._quiet:
            return True
        if not text.strip():
            move = None
        else:
            try:
                move = parse_move(text, self.rules)
            except DdzError as e:
                return self._fail(e)
            if move.is_pass:
                move = None
        self.to_beat = move
        self.error.value = ""
        self._refresh()
        return True

    def click_rank(self, rank: int) -> bool:
        """One more card of ``rank``; after the deck's last copy, none again."""
        counts = unpack(self.bits)
        deck = unpack(self.rules.deck)
        counts[rank] = counts[rank] + 1 if counts[rank] < deck[rank] else 0
        return self.set_bits(pack(counts))

    def deal_random(self) -> bool:
        """``size`` cards drawn from the rule set's deck with ``seed``."""
        deck = Hand.from_bits(self.rules.deck).ranks()
        n = self.size_box.value
        if n > len(deck):
            return self._fail(RulesError(f"the {self.rules.name} deck has {len(deck)} cards, not {n}"))
        ranks = as_rng(self.seed_box.value).choice(deck, n, replace=False).tolist()
        return self.set_bits(Hand.from_ranks(ranks).bits)

    def _on_rules(self, change: dict) -> None:
        if self._quiet:
            return
        rules = get_rules(change["new"])
        if not self.set_bits(self.bits, rules):       # this hand does not fit: back to the old rules
            self._quiet = True
            self.rules_box.value = change["old"]
            self._quiet = False

    # -- output -----------------------------------------------------------------------
    def _refresh(self) -> None:
        """Recompute everything for the current hand: cheap parts now, the rest in the background."""
        with self._lock:
            self._gen += 1
            gen = self._gen
        bits, rules, to_beat = self.bits, self.rules, self.to_beat
        self._quiet = True
        self.text.value = str(self.hand)
        self.beat_text.value = "" if to_beat is None else str(to_beat)
        self._quiet = False
        deck = unpack(rules.deck)
        counts = unpack(bits)
        for r, b in enumerate(self.rank_buttons):
            b.description = f"{RANK_CHARS[r]}×{counts[r]}" if counts[r] else RANK_CHARS[r]
            b.disabled = deck[r] == 0
        n = bits_size(bits)
        self.hand_html.value = (f"{cards_html(bits)} <span class='ddz-note'>{n} cards, "
                                f"{rules.name} rules</span>")
        self.legal = _legal(bits, rules, to_beat)
        kinds: dict[Kind, int] = {}
        for m in self.legal:
            kinds[m.kind] = kinds.get(m.kind, 0) + 1
        old = self.kind_box.value
        self._quiet = True
        self.kind_box.options = [(f"all ({len(self.legal)})", ALL)] + [
            (f"{k.label} ({c})", k) for k, c in sorted(kinds.items())]
        self.kind_box.value = old if old in kinds else ALL
        self._quiet = False
        self._show_moves()
        self.fewest = self.power = self.score = None
        self.bid_value = None
        self.agent_moves = {}
        parts: list[tuple[Callable[[int], None], W.HTML]] = [(self._do_fewest, self.fewest_html),
                                                             (self._do_power, self.power_html)]
        if n <= self.sync_cards:
            self._run(gen, parts)
            parts = []
        parts += [(self._do_score, self.score_html), (self._do_bidding, self.bid_html),
                  (self._do_agents, self.agents_html)]
        for _, widget in parts:
            widget.value = BUSY
        if not self.background:
            self._run(gen, parts)
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ddz-inspector")
        self._future = self._pool.submit(self._run, gen, parts)

    def _run(self, gen: int, parts: list[tuple[Callable[[int], None], W.HTML]]) -> None:
        for part, widget in parts:
            if gen != self._gen:
                return                      # the hand changed: a newer job will redo this
            try:
                part(gen)
            except Exception as e:          # shown in its place; a widget thread must not die silently
                self._set(gen, widget, _err(e))

    def close(self) -> None:
        """Cancel pending background work and stop the worker thread; the widget stays shown."""
        with self._lock:
            self._gen += 1                  # a running part's result is dropped, later parts skipped
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def wait(self, timeout: Optional[float] = 60) -> None:
        """Block until the background computations of the current hand are done."""
        f = self._future
        if f is not None:
            f.result(timeout)

    def _set(self, gen: int, widget: W.HTML, value: str) -> None:
        if gen == self._gen:
            widget.value = value

    def _show_moves(self) -> None:
        if self._quiet:
            return
        kind = self.kind_box.value
        shown = [m for m in self.legal if kind == ALL or m.kind == kind]
        self.shown_moves = shown
        head = (f'<div><span class="ddz-moves-n">{len(shown)}</span> '
                f'{"replies to " + cards_html(self.to_beat) if self.to_beat else "moves to lead"}</div>')
        rows = " ".join(f'<span class="ddz-move" title="{m.kind.label}">{cards_html(m)}</span>'
                        for m in shown[:300])
        more = f'<div class="ddz-note">… and {len(shown) - 300} more</div>' if len(shown) > 300 else ""
        self.moves_html.value = head + f'<div style="max-height:320px;overflow:auto">{rows}</div>' + more

    def _do_fewest(self, gen: int) -> None:
        if not self.bits:
            return self._set(gen, self.fewest_html, '<span class="ddz-note">no cards</span>')
        r = _fewest(self.bits, self.rules)
        if gen == self._gen:
            self.fewest = r
        self._set(gen, self.fewest_html, f'<div><span class="ddz-fewest-n">{r.plays}</span> plays</div>'
                  + split_html(r.moves))

    def _do_power(self, gen: int) -> None:
        n = bits_size(self.bits)
        if not n:
            return self._set(gen, self.power_html, '<span class="ddz-note">no cards</span>')
        if n > self.max_power_cards:
            return self._set(gen, self.power_html, f'<span class="ddz-note">not computed: {n} cards is '
                             f'more than the {self.max_power_cards} this view searches</span>')
        p = _power(self.bits, self.rules)
        hs = _hints(self.bits, self.rules, self.to_beat)
        if gen == self._gen:
            self.power = p
        hint_text = ", ".join(f"{cards_html(m)} ({v:.0f})" for m, v in hs) or "none (pass)"
        self._set(gen, self.power_html, f'<div>power <b class="ddz-power-v">{p.power:.1f}</b> in '
                  f'{len(p.moves)} plays</div>{split_html(p.moves)}<div>hints: {hint_text}</div>'
                  f'<div class="ddz-note">{POWER_NOTE}</div>')

    def _do_score(self, gen: int) -> None:
        n = bits_size(self.bits)
        if not n:
            return self._set(gen, self.score_html, '<span class="ddz-note">no cards</span>')
        if n > self.max_score_cards:
            return self._set(gen, self.score_html, f'<span class="ddz-note">not computed: {n} cards is '
                             f'more than the {self.max_score_cards} this view searches</span>')
        s = _score(self.bits, self.rules)
        if gen == self._gen:
            self.score = s
        value = {float("inf"): "+inf", float("-inf"): "-inf"}.get(s.score, f"{s.score:.4f}")
        self._set(gen, self.score_html, f'<div>score <b class="ddz-score-v">{value}</b> = ln {s.value} / '
                  f'ln {s.steps}</div>{split_html(s.moves)}')

    def _do_bidding(self, gen: int) -> None:
        if not self.bits:
            return self._set(gen, self.bid_html, '<span class="ddz-note">no cards</span>')
        v = _bidding(self.bits)
        if gen == self._gen:
            self.bid_value = v
        n = bits_size(self.bits)
        note = "" if n == 17 and self.rules.name == "standard" else (
            f' <span class="ddz-note">(trained on 17-card standard hands; this one has {n} cards)</span>')
        self._set(gen, self.bid_html, f'<b class="ddz-bid-call">{"call" if v > 0 else "do not call"}</b>'
                  f' — decision value <span class="ddz-bid-v">{v:+.3f}</span>{note}')

    def _do_agents(self, gen: int) -> None:
        if not self.bits:
            return self._set(gen, self.agents_html, '<span class="ddz-note">no cards</span>')
        n, most = bits_size(self.bits), min(self.max_agent_cards, self.rules.hand_size + self.rules.kitty_size)
        if n > most:
            return self._set(gen, self.agents_html, f'<span class="ddz-note">not asked: agents play dealt '
                             f'hands, at most {most} cards under the {self.rules.name} rules (this one has '
                             f'{n})</span>')
        try:
            obs = leading_observation(self.bits, self.rules, self.to_beat)
        except DdzError as e:
            return self._set(gen, self.agents_html, _err(e))
        rows: list[str] = []
        moves: dict[str, Union[Move, Exception]] = {}
        for name in self.agent_names if self.agent_names is not None else available_agents():
            if gen != self._gen:
                return
            label = name
            try:
                agent = make_agent(name, seed=0)
                own = agent_name(agent)         # several registered names build an `ismcts`
                label = name if own == name else f"{name} ({own})"
                if hasattr(agent, "see_all_hands"):
                    raise DdzError("sees all hands: needs a whole game, not one seat's view")
                move = agent.play(obs)
                moves[name] = move
                cell = f"{cards_html(move)}</td><td>{_eval_text(last_evaluation(agent))}"
            except DdzError as e:       # an agent that does not apply to this hand says why
                moves[name] = e
                cell = f'<span class="ddz-note">does not apply: {html.escape(str(e))}</span></td><td>'
            except Exception as e:      # a bug: shown in red, in its place
                moves[name] = e
                cell = f"{_err(e)}</td><td>"
            rows.append(f"<tr><td>{html.escape(label)}</td><td>{cell}</td></tr>")
        if gen == self._gen:
            self.agent_moves = moves
        self._set(gen, self.agents_html, '<table class="ddz-agent-table"><tr><th>agent</th><th>plays</th>'
                  '<th>its evaluation</th></tr>' + "".join(rows) + "</table>")


# -- the game replay -------------------------------------------------------------------------
def _tricks(history: Sequence[tuple[int, Move]], players: int) -> list[list[tuple[int, Move]]]:
    """The play history cut into tricks (a trick ends after ``players - 1`` passes in a row)."""
    tricks: list[list[tuple[int, Move]]] = [[]]
    passes = 0
    for seat, move in history:
        tricks[-1].append((seat, move))
        passes = passes + 1 if move.is_pass else 0
        if passes == players - 1:
            tricks.append([])
            passes = 0
    return [t for t in tricks if t]


class GameReplay:
    """Step through a recorded game (module docstring).

    ``record``: a `GameRecord`, or a record file (path) whose game number ``game`` is shown
    first (a dropdown picks the others); ``rules``: refuse a file of another rule set.
    """

    def __init__(self, record: Union[GameRecord, str, Path], game: int = 0,
                 rules: Union[str, Rules, None] = None) -> None:
        if isinstance(record, GameRecord):
            self.games = [record]
        else:
            self.games = read_records(record, rules)[1]
            if not self.games:
                raise DdzError(f"{record}: the record holds no games")
        self.start = W.Button(description="« start")
        self.back = W.Button(description="‹ back")
        self.forward = W.Button(description="forward ›")
        self.end = W.Button(description="end »")
        for b, cls in ((self.start, "start"), (self.back, "back"), (self.forward, "forward"), (self.end, "end")):
            b.add_class(f"ddz-replay-{cls}")
        self.slider = W.IntSlider(min=0, max=1, description="step", continuous_update=True)
        self.view = W.Dropdown(description="view")
        self.game_box = W.Dropdown(options=[(f"game {g.index} ({', '.join(g.seats)})", i)
                                            for i, g in enumerate(self.games)], description="game",
                                   layout=W.Layout(width="420px"))
        self.status_html = W.HTML()
        self.status_html.add_class("ddz-replay-status")
        self.hands_html = W.HTML()
        self.hands_html.add_class("ddz-replay-hands")
        self.bids_html = W.HTML()
        self.tricks_html = W.HTML()
        self.tricks_html.add_class("ddz-replay-tricks")
        self.start.on_click(lambda _b: self.goto(0))
        self.back.on_click(lambda _b: self.goto(self.step - 1))
        self.forward.on_click(lambda _b: self.goto(self.step + 1))
        self.end.on_click(lambda _b: self.goto(self.n_steps))
        self.slider.observe(lambda ch: self._show(), names="value")
        self.view.observe(lambda ch: self._show(), names="value")
        self.game_box.observe(lambda ch: self._load(ch["new"]), names="value")
        self.widget = W.VBox([W.HTML(_CSS), self.game_box,
                              W.HBox([self.start, self.back, self.forward, self.end, self.slider, self.view]),
                              self.status_html, self.hands_html, self.bids_html, self.tricks_html])
        self.widget.add_class("ddz-replay")
        self._load(game)
        if game:
            self.game_box.value = game

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def _load(self, i: int) -> None:
        self.record = rec = self.games[i]
        self.states: list[Game] = rec.states()
        self.actions = rec.actions()
        seen = self.view.value
        self.view.options = [("all hands", ALL)] + [(f"seat {s} ({rec.seats[s]})", s) for s in range(rec.players)]
        self.view.value = seen if seen in range(rec.players) else ALL     # never blank
        self.slider.max = max(1, self.n_steps)
        self.slider.value = 0
        self._show()

    @property
    def n_steps(self) -> int:
        return len(self.actions)

    @property
    def step(self) -> int:
        return min(self.slider.value, self.n_steps)     # the slider spans at least 0..1

    def goto(self, step: int) -> None:
        """Show the game after ``step`` actions (clipped to 0..n_steps)."""
        self.slider.value = max(0, min(self.n_steps, step))
        self._show()

    @property
    def state(self) -> Game:
        return self.states[self.step]

    def _show(self) -> None:
        rec, g, k, seen = self.record, self.state, self.step, self.view.value
        seen = None if seen == ALL else seen
        role = g.role

        def who(s: int) -> str:
            r = role(s)
            return f"seat {s} ({html.escape(rec.seats[s])}{'' if r in ('bidder', 'player') else ', ' + r})"

        def private(s: int, ev: Optional[dict]) -> str:
            text = _eval_text(ev) if seen is None or seen == s else ""
            return f' <span class="ddz-eval">[{text}]</span>' if text else ""

        if k == 0:
            last = "the cards are dealt"
        else:
            kind, s, action, ev = self.actions[k - 1]
            last = (f"{who(s)} {'bids ' + str(action) if action else 'passes'}" if kind == "bid"
                    else f"{who(s)} plays {cards_html(action)}") + private(s, ev)
        mult = (1 << g.bombs) * (2 if g.spring else 1)
        kitty = "none (two players)" if rec.players == 2 else "not revealed yet"
        result = ""
        if g.is_over and g.winner is not None and g.scores is not None:     # (both set once over)
            result = (f" — over: {who(g.winner)} went out; scores "
                      f"{', '.join(f'{p:+d}' for p in g.scores)}")
        self.status_html.value = (f'<div><b>step <span class="ddz-step">{k}</span> / {self.n_steps}</b>: '
                                  f'<span class="ddz-last">{last}</span></div>'
                                  f"<div>{rec.rules.name} rules; landlord: "
                                  f"{'—' if g.landlord is None else who(g.landlord)}; kitty: "
                                  f"{cards_html(g.kitty) if g.kitty is not None else kitty}; "
                                  f"{'base score 1 (fixed landlord, no bidding)' if rec.fixed_landlord is not None else f'bid {g.bid}'}; "
                                  f"bombs {g.bombs}; multiplier ×{mult}{result}</div>")
        rows = []
        for s in range(rec.players):
            cards = cards_html(g.hands[s]) if seen is None or seen == s else f"{g.sizes[s]} cards"
            mark = " ◀ to act" if g.to_act == s else ""
            rows.append(f'<div class="ddz-seat-{s}">{who(s)}: {cards}{mark}</div>')
        self.hands_html.value = "".join(rows)
        bids = [f"seat {s}: {b or 'pass'}{private(s, ev)}" for s, b, ev in rec.bids[:min(k, len(rec.bids))]]
        self.bids_html.value = ("<div><b>bids</b>: " + ("; ".join(bids) if bids else
                                ("none yet" if rec.bids else "none (fixed landlord)")) + "</div>")
        n_moves = max(0, k - len(rec.bids))
        evals = {i: rec.moves[i][2] for i in range(n_moves)}
        lines, i = [], 0
        for t, trick in enumerate(_tricks(g.history, g.players)):
            cells = []
            for s, m in trick:
                cells.append(f"s{s} {cards_html(m)}{private(s, evals.get(i))}")
                i += 1
            lines.append(f"<div>trick {t + 1}: {' · '.join(cells)}</div>")
        self.tricks_html.value = "<div><b>tricks</b></div>" + ("".join(reversed(lines)) or "none yet")


__all__ = ["HandInspector", "GameReplay", "cards_html", "split_html", "leading_observation"]
