"""Game records: a versioned JSON-lines file of whole games, written by the arena and
``ddzlab play``, read by the replay widget (`ddzlab.widgets.GameReplay`).

Format ``ddzlab-game-record``, version 1 (UTF-8, one JSON object per line). Line 1 is the
header::

    {"format": "ddzlab-game-record", "version": 1, "rules": "standard", "players": 3,
     "agents": ["greedy", "smallest"], "seed": 0, "source": "duel"}

``agents`` names the agents of the run (a duel's A and B, or one name per seat), ``seed``
the run's seed (or null), ``source`` what wrote it (``duel``, ``play``, ``tournament``...);
other keys are allowed and kept in `RecordHeader.extra`. Every further line is one game::

    {"game": 0, "seats": ["greedy", "smallest", "smallest"],
     "deal": {"hands": ["3445...", "...", "..."], "kitty": "QKR"},
     "first_bidder": 0, "fixed_landlord": 0, "redeals": 0,
     "bids": [{"seat": 0, "bid": 3, "eval": {"score": 1.2, "level": 3}}, ...],
     "landlord": 0, "kitty": "QKR",
     "moves": [{"seat": 0, "move": "33344458", "eval": {"q": 9}}, {"seat": 1, "move": "pass"}, ...],
     "bid": 1, "bombs": 0, "spring": false, "multiplier": 1, "winner": 0, "scores": [2, -1, -1]}

* ``game`` numbers the games of the run (a duel: ``2 × deal + half``); lines appear in
  the order the games finished, which a parallel run may shuffle.
* ``deal`` is the deal the game was played from (after any all-pass redeals, which
  ``redeals`` counts); hands in seat order, the kitty apart (`ddzlab.deals.Deal`).
* ``fixed_landlord`` is the landlord seat of a game without bidding (DouZero's evaluation
  mode, the mini rules), else null; ``bids`` lists the auction (``bid`` 0 = pass).
* ``moves`` lists every play in order, cards in `ddzlab.cards` notation or ``"pass"``;
  ``eval`` is there only where the agent gave one (`ddzlab.agents.base.Evaluating`).
* ``bid``, ``bombs``, ``spring``, ``multiplier``, ``winner``, ``scores`` are the result
  (null while a game is unfinished, e.g. an abandoned ``ddzlab play``); ``landlord`` and
  ``kitty`` are null in two-player games.

A record of another run is never replaced: `RecordWriter` appends to a file whose header
describes the same run and raises `RecordError` naming the file otherwise. ``ddzlab play``
appends each game; a duel or tournament appends when it resumes its own run from its
results file, and otherwise writes its own record afresh (the same run played again from
its start), refusing a record of another run before it writes anything.

Reading replays every game through `ddzlab.game.Game`, so a record whose moves are
illegal, or whose stated result differs from the replayed one, is refused: the reader
raises `RecordError` (a `ValueError`) naming the file and line. A record of another
format, format version, or -- when the reader asks for one -- rule set is refused too.

>>> import io
>>> from ddzlab.agents import make_agent
>>> from ddzlab.game import Game
>>> game, evals = play_recorded(Game(seed=3, landlord=0), [make_agent("greedy"),
...                                 make_agent("smallest"), make_agent("smallest")])
>>> buf = io.StringIO()
>>> write_records(buf, [game_record(game, ["greedy", "smallest", "smallest"], evals)],
...               rules="standard", agents=["greedy", "smallest"], seed=3, source="doc")
>>> header, games = read_records(io.StringIO(buf.getvalue()))
>>> header.version, games[0].scores == game.scores, games[0].moves[0][2]["q"] > 0
(1, True, True)
"""
from __future__ import annotations

import io
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence, TextIO, Union

from .agents.base import Agent, Evaluating, last_evaluation, play_game
from .cards import format_bits, pack, parse_counts
from .deals import Deal
from .errors import DdzError
from .game import Game, Phase
from .moves import Move
from .rules import Rules, get_rules

FORMAT = "ddzlab-game-record"
VERSION = 1

PathOrFile = Union[str, Path, TextIO]


class RecordError(DdzError):
    """A game record file that is malformed, of another format version or rule set, or
    whose games do not replay to what it states."""


# -- writing --------------------------------------------------------------------------
class _Explaining:
    """Wraps an agent for one game: passes bids and moves through, keeps its evaluations.

    Evaluations are keyed by the index of the action in the final auction (``bids``) or in
    the play history (``moves``); an all-pass redeal starts the auction again, so its bids'
    evaluations are dropped with it."""

    def __init__(self, agent: Agent, evals: dict) -> None:
        self.agent = agent
        self.evals = evals
        self.name = getattr(agent, "name", None) or type(agent).__name__

    def __getattr__(self, name: str) -> Any:      # e.g. a cheater's see_all_hands
        if name == "agent":
            raise AttributeError(name)
        return getattr(self.agent, name)

    def _forget(self) -> None:
        if isinstance(self.agent, Evaluating) and self.agent.last_eval is not None:
            try:
                self.agent.last_eval = None
            except AttributeError:
                pass

    def bid(self, obs) -> int:
        if not obs.bids:
            self.evals["bids"].clear()          # a new auction (first, or after a redeal)
        self._forget()
        value = self.agent.bid(obs)
        ev = last_evaluation(self.agent)
        if ev is not None:
            self.evals["bids"][len(obs.bids)] = ev
        return value

    def play(self, obs) -> Move:
        self._forget()
        move = self.agent.play(obs)
        ev = last_evaluation(self.agent)
        if ev is not None:
            self.evals["moves"][len(obs.history)] = ev
        return move


def explaining(agents: dict[int, Agent] | Sequence[Agent]) -> tuple[Any, dict]:
    """Wrap agents (a list by seat, or a dict seat -> agent) so their evaluations are kept.

    Returns the wrapped agents (same shape) and the dict ``{"bids": {i: eval}, "moves":
    {i: eval}}`` that `game_record` takes."""
    evals: dict = {"bids": {}, "moves": {}}
    if isinstance(agents, dict):
        return {s: _Explaining(a, evals) for s, a in agents.items()}, evals
    return [_Explaining(a, evals) for a in agents], evals


def play_recorded(game: Game, agents: Sequence[Agent], max_redeals: int = 100) -> tuple[Game, dict]:
    """`ddzlab.agents.play_game` that also keeps the agents' evaluations (for `game_record`)."""
    wrapped, evals = explaining(agents)
    return play_game(game, wrapped, max_redeals), evals


def _json_safe(value: Any) -> Any:
    """Round-trip through JSON so numpy numbers and tuples become plain values (or fail
    here, naming the value, instead of in the middle of a file)."""
    try:
        return json.loads(json.dumps(value, default=lambda o: o.item() if hasattr(o, "item") else str(o)))
    except (TypeError, ValueError) as e:     # e.g. an evaluation that contains itself
        raise RecordError(f"evaluation {value!r} cannot be written as JSON: {e}") from None


def game_record(game: Game, seats: Sequence[str], evals: Optional[dict] = None,
                index: int = 0, **extra: Any) -> dict:
    """One game as a record line (a dict; see the module docstring). ``seats`` names the
    agent (or ``"human"``) of each seat; ``evals`` comes from `play_recorded` / `explaining`;
    ``extra`` keys are stored as they are (e.g. ``half=1`` in a duel)."""
    if len(seats) != game.players:
        raise RecordError(f"{len(seats)} seat names for a {game.players}-player game")
    evals = evals or {"bids": {}, "moves": {}}
    finished = game.phase is Phase.FINISHED
    bids = []
    for i, (seat, value) in enumerate(game.bids):
        item: dict[str, object] = {"seat": seat, "bid": value}
        if i in evals["bids"]:
            item["eval"] = _json_safe(evals["bids"][i])
        bids.append(item)
    moves = []
    for i, (seat, move) in enumerate(game.history):
        item = {"seat": seat, "move": str(move)}
        if i in evals["moves"]:
            item["eval"] = _json_safe(evals["moves"][i])
        moves.append(item)
    rec = {
        "game": index, "seats": list(seats),
        "deal": {"hands": [format_bits(b) for b in game.deal.hands], "kitty": format_bits(game.deal.kitty)},
        # a game without an auction has no first bidder: 0, which the reader checks
        "first_bidder": game.spec.first_bidder if game.spec.bidding else 0,
        "fixed_landlord": game.spec.fixed_landlord,
        "redeals": game.redeals, "bids": bids, "landlord": game.landlord,
        "kitty": None if game.kitty is None else str(game.kitty), "moves": moves,
        "bid": game.bid if finished else None, "bombs": game.bombs if finished else None,
        "spring": game.spring if finished else None,
        "multiplier": game.multiplier if finished else None,
        "winner": game.winner, "scores": None if game.scores is None else list(game.scores),   # (None until over)
    }
    rec.update(extra)
    return rec


def _header(rules: Union[Rules, str], players: Optional[int], agents: Sequence[str],
            seed: Any, source: str, extra: dict) -> dict:
    rules = get_rules(rules)
    return {"format": FORMAT, "version": VERSION, "rules": rules.name,
            "players": rules.players if players is None else players, "agents": list(agents),
            "seed": seed, "source": source, **extra}


class RecordWriter:
    """Appends games to a record file, one line each, flushed as they come.

    A new (or empty) file gets the header first. An existing file is appended to only if
    its header describes the same run (format, version, rules, players, agents, seed,
    source); otherwise `RecordError` -- so a resumed duel extends its own record and never
    mixes runs. Use as a context manager or call `close`.
    """

    def __init__(self, path: Union[str, Path], *, rules: Union[Rules, str], agents: Sequence[str],
                 seed: Any = None, source: str = "ddzlab", players: Optional[int] = None,
                 **extra: Any) -> None:
        self.path = Path(path)
        self.header = _header(rules, players, agents, seed, source, extra)
        # the header this writer would write must read back (e.g. players 2 or 3)
        mine = read_header_dict(self.header, f"{self.path} (new header)")
        self.count = 0
        if self.path.exists() and self.path.stat().st_size > 0:
            old, games = read_records(self.path)
            _check_same_run(self.path, old, mine)
            self.count = len(games)
            self._file = open(self.path, "a", encoding="utf-8")
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "w", encoding="utf-8")
            self._line(self.header)

    def _line(self, obj: dict) -> None:
        self._file.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._file.flush()

    def write(self, record: dict) -> None:
        """Append one game (a `game_record` dict)."""
        self._line(record)
        self.count += 1

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> "RecordWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


#: what two runs must share for one record file to hold both (`RecordWriter`)
SAME_RUN_KEYS = ("rules", "players", "agents", "seed", "source")


def _check_same_run(path: Path, old: RecordHeader, mine: RecordHeader) -> None:
    """`RecordError` naming ``path`` if its header ``old`` describes another run than ``mine``."""
    for key in SAME_RUN_KEYS:
        if getattr(old, key) != getattr(mine, key):
            raise RecordError(f"{path} holds another run ({key}={getattr(old, key)!r}, "
                              f"this one has {getattr(mine, key)!r}); use another file")


def check_record_run(path: Union[str, Path], *, rules: Union[Rules, str], agents: Sequence[str],
                     seed: Any = None, source: str = "ddzlab", players: Optional[int] = None) -> int:
    """The number of game lines of the record file ``path`` (0 if it is missing or empty),
    after checking from its header line alone that it holds the run described, as
    `RecordWriter` does: `RecordError` naming the file if it holds another run (nothing in
    the file is changed). The games themselves are not read (`RecordWriter` checks them)."""
    path = Path(path)
    if not path.is_file() or path.stat().st_size == 0:
        return 0
    mine = read_header_dict(_header(rules, players, agents, seed, source, {}), f"{path} (new header)")
    with open(path, "rb") as f:
        first = f.readline()
        games = sum(1 for line in f if line.strip())
    try:
        obj = json.loads(first.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise RecordError(f"{path}:1: not a ddzlab game record header; use another file") from None
    _check_same_run(path, read_header_dict(obj, f"{path}:1"), mine)
    return games


def write_records(target: PathOrFile, records: Iterable[dict], *, rules: Union[Rules, str],
                  agents: Sequence[str], seed: Any = None, source: str = "ddzlab",
                  players: Optional[int] = None, **extra: Any) -> None:
    """Write a whole record (header + games) to a new file or an open text stream."""
    header = _header(rules, players, agents, seed, source, extra)
    if isinstance(target, (str, Path)):
        with open(target, "w", encoding="utf-8") as f:
            write_records(f, records, rules=rules, agents=agents, seed=seed, source=source,
                          players=players, **extra)
        return
    for obj in (header, *records):
        target.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")


# -- reading --------------------------------------------------------------------------
@dataclass(frozen=True)
class RecordHeader:
    """The first line of a record file."""
    rules: Rules
    players: int
    agents: tuple[str, ...]
    seed: Any
    source: str
    version: int = VERSION
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class GameRecord:
    """One recorded game, checked by replaying it.

    ``bids`` are (seat, bid, eval or None); ``moves`` are (seat, `Move`, eval or None);
    ``line`` is its line number in the file.
    """
    index: int
    rules: Rules
    players: int
    seats: tuple[str, ...]
    deal: Deal
    first_bidder: int
    fixed_landlord: Optional[int]
    redeals: int
    bids: tuple[tuple[int, int, Optional[dict]], ...]
    landlord: Optional[int]
    moves: tuple[tuple[int, Move, Optional[dict]], ...]
    finished: bool
    bid: Optional[int]
    bombs: Optional[int]
    multiplier: Optional[int]
    winner: Optional[int]
    scores: Optional[tuple[int, ...]]
    line: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def n_actions(self) -> int:
        """Bids plus moves: the number of steps of a replay."""
        return len(self.bids) + len(self.moves)

    def new_game(self) -> Game:
        """The game at its start (cards dealt, before the first bid or move)."""
        return Game(self.deal, rules=self.rules, players=self.players, landlord=self.fixed_landlord,
                    first_bidder=self.first_bidder)

    def actions(self) -> list[tuple[str, int, Union[int, Move], Optional[dict]]]:
        """Every step in order: (``"bid"`` or ``"move"``, seat, bid or move, eval)."""
        return ([("bid", s, b, e) for s, b, e in self.bids]
                + [("move", s, m, e) for s, m, e in self.moves])

    def states(self) -> list[Game]:
        """The game before the first action and after each one (``n_actions + 1`` games)."""
        g = self.new_game()
        out = [g.copy()]
        for _, value, _ in self.bids:       # (seats checked when the line was read)
            g.make_bid(value)
            out.append(g.copy())
        for _, move, _ in self.moves:
            g.play(move)
            out.append(g.copy())
        return out


def read_header_dict(obj: Any, where: str, rules: Union[Rules, str, None] = None) -> RecordHeader:
    """Check a parsed header line; raise `RecordError` naming ``where`` if it is not one
    of this format and version (and of ``rules``, when given)."""
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        got = obj.get("format") if isinstance(obj, dict) else type(obj).__name__
        raise RecordError(f"{where}: not a ddzlab game record (format {got!r}, expected {FORMAT!r})")
    if obj.get("version") != VERSION:
        raise RecordError(f"{where}: record format version {obj.get('version')!r}; this ddzlab "
                          f"reads version {VERSION} only")
    try:
        got = get_rules(str(obj.get("rules")))
    except DdzError as e:
        raise RecordError(f"{where}: {e}") from None
    if rules is not None and get_rules(rules) != got:
        raise RecordError(f"{where}: a record of the {got.name} rules, not {get_rules(rules).name}")
    players = obj.get("players", got.players)
    if players not in (2, 3):
        raise RecordError(f"{where}: players must be 2 or 3, not {players!r}")
    agents = obj.get("agents", [])
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
        raise RecordError(f"{where}: 'agents' must be a list of names")
    known = {"format", "version", "rules", "players", "agents", "seed", "source"}
    return RecordHeader(got, players, tuple(agents), obj.get("seed"), str(obj.get("source", "")),
                        VERSION, {k: v for k, v in obj.items() if k not in known})


def _cards(text: Any, what: str) -> int:
    if not isinstance(text, str):
        raise RecordError(f"{what} must be card text, not {text!r}")
    try:
        return pack(parse_counts(text))
    except DdzError as e:
        raise RecordError(f"{what}: {e}") from None


def _entries(items: list, field: str, kind: type, shape: str, players: int):
    """(label, seat, item) of each ``{"seat": s, field: <kind>}`` entry of a bids/moves list."""
    for i, item in enumerate(items):
        what = f"{field} {i}"
        if not isinstance(item, dict) or not isinstance(item.get(field), kind):
            raise RecordError(f"{what}: expected {{\"seat\": s, \"{field}\": {shape}}}, got {item!r}")
        yield what, _seat(item.get("seat"), players, what), item


def _seat(value: Any, players: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < players:
        raise RecordError(f"{what}: seat {value!r} is not a seat of a {players}-player game")
    return value


def _same(stated: Any, replayed: Any) -> bool:
    """Whether a record's stated value is the replayed one, JSON type included: ``true`` is
    not ``1``, ``0`` is not ``false`` and ``2.0`` is not ``2`` (Python's ``==`` says they
    are), so a record whose ``spring`` is 0 or whose ``landlord`` is false is refused, not
    read as the right value."""
    if isinstance(replayed, (list, tuple)):
        return (isinstance(stated, list) and len(stated) == len(replayed)
                and all(_same(a, b) for a, b in zip(stated, replayed)))
    return (stated == replayed and isinstance(stated, bool) == isinstance(replayed, bool)
            and isinstance(stated, float) == isinstance(replayed, float))


def _count(value: Any, what: str) -> int:
    """A game index or redeal count: an integer 0..10^9 (not a bool, float or text)."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 10**9:
        raise RecordError(f"{what!r} must be an integer 0..10^9, not {value!r}")
    return value


def _eval(item: dict, what: str) -> Optional[dict]:
    ev = item.get("eval")
    if ev is not None and not isinstance(ev, dict):
        raise RecordError(f"{what}: 'eval' must be an object, not {ev!r}")
    return ev


_REQUIRED = ("seats", "deal", "bids", "moves")


def read_game(obj: Any, header: RecordHeader) -> GameRecord:
    """Check one game line against its header by replaying it; `RecordError` if it fails
    (without the line number, which `read_records` adds)."""
    if not isinstance(obj, dict):
        raise RecordError(f"a game line must be a JSON object, not {type(obj).__name__}")
    missing = [k for k in _REQUIRED if k not in obj]
    if missing:
        raise RecordError(f"game line lacks {', '.join(map(repr, missing))}")
    rules, players = header.rules, header.players
    seats = obj["seats"]
    if not isinstance(seats, list) or len(seats) != players:
        raise RecordError(f"'seats' must name {players} agents, got {seats!r}")
    deal_obj = obj["deal"]
    if not isinstance(deal_obj, dict) or not isinstance(deal_obj.get("hands"), list):
        raise RecordError("'deal' must be {\"hands\": [...], \"kitty\": ...}")
    deal = Deal(tuple(_cards(h, f"deal hand {i}") for i, h in enumerate(deal_obj["hands"])),
                _cards(deal_obj.get("kitty", ""), "deal kitty"))
    fixed = obj.get("fixed_landlord")
    if fixed is not None:
        fixed = _seat(fixed, players, "fixed_landlord")
    first = _seat(obj.get("first_bidder", 0), players, "first_bidder")
    try:
        game = Game(deal, rules=rules, players=players, landlord=fixed, first_bidder=first)
    except DdzError as e:
        raise RecordError(f"deal: {e}") from None
    if not game.spec.bidding and first != 0:
        raise RecordError(f"'first_bidder' is {first!r} in a game without an auction (must be 0)")
    redeals = _count(obj.get("redeals", 0), "redeals")
    if redeals and not game.spec.bidding:
        raise RecordError(f"'redeals' is {redeals} in a game without an auction (must be 0)")
    index = _count(obj.get("game", 0), "game")
    bids, moves = [], []
    if not isinstance(obj["bids"], list) or not isinstance(obj["moves"], list):
        raise RecordError("'bids' and 'moves' must be lists")
    for what, seat, item in _entries(obj["bids"], "bid", int, "n", players):
        try:
            game.make_bid(item["bid"], seat)
        except DdzError as e:
            raise RecordError(f"{what}: {e}") from None
        bids.append((seat, item["bid"], _eval(item, what)))
    if game.redeals:
        raise RecordError("the bids end in an all-pass auction: a record holds the last deal's bids only")
    for what, seat, item in _entries(obj["moves"], "move", str, "cards", players):
        try:
            move = game.play(item["move"], seat)
        except DdzError as e:
            raise RecordError(f"{what} ({item['move']!r}): {e}") from None
        moves.append((seat, move, _eval(item, what)))
    finished = game.phase is Phase.FINISHED
    bid, bombs = (game.bid, game.bombs) if finished else (None, None)
    multiplier, scores = game.multiplier if finished else None, game.scores       # (scores: None until over)
    stated: dict[str, object] = {"landlord": game.landlord, "winner": game.winner, "bid": bid, "bombs": bombs,
                                 "spring": game.spring if finished else None, "multiplier": multiplier,
                                 "scores": None if scores is None else list(scores)}
    if obj.get("kitty") is not None:
        obj = {**obj, "kitty": format_bits(_cards(obj["kitty"], "kitty"))}
    stated["kitty"] = None if game.kitty is None else str(game.kitty)
    for key, value in stated.items():
        if key in obj and not _same(obj[key], value):
            raise RecordError(f"{key!r} is {obj[key]!r} but the deal and moves give {value!r}")
    known = {"game", "seats", "deal", "first_bidder", "fixed_landlord", "redeals", "bids",
             "landlord", "kitty", "moves", "bid", "bombs", "spring", "multiplier", "winner", "scores"}
    return GameRecord(
        index=index, rules=rules, players=players, seats=tuple(map(str, seats)),
        deal=deal, first_bidder=first, fixed_landlord=fixed, redeals=redeals,
        bids=tuple(bids), landlord=game.landlord, moves=tuple(moves), finished=finished,
        bid=bid, bombs=bombs, multiplier=multiplier, winner=game.winner, scores=scores,
        extra={k: v for k, v in obj.items() if k not in known})


def read_records(source: PathOrFile, rules: Union[Rules, str, None] = None
                 ) -> tuple[RecordHeader, list[GameRecord]]:
    """Read and check a record file (a path or an open text stream).

    ``rules``: refuse a record of any other rule set. Raises `RecordError` naming the file
    and line of the first problem (bad JSON, another format or version, an illegal move,
    a result that does not match the moves). Blank lines are ignored.
    """
    if isinstance(source, (str, Path)):
        name = str(source)
        try:
            with open(source, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise RecordError(f"{name}: no such record file") from None
        except OSError as e:          # a folder, no permission...
            raise RecordError(f"{name}: cannot read the record file ({e.strerror})") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            at = data[:e.start].count(b"\n") + 1
            raise RecordError(f"{name}:{at}: not UTF-8 text (byte {data[e.start]:#04x})") from None
        return read_records(_Named(text, name), rules)
    name = getattr(source, "name", "<record>")
    header: Optional[RecordHeader] = None
    games: list[GameRecord] = []
    for lineno, line in enumerate(source, start=1):
        if not line.strip():
            continue
        where = f"{name}:{lineno}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise RecordError(f"{where}: not valid JSON ({e.msg}, column {e.colno})") from None
        except RecursionError:
            raise RecordError(f"{where}: JSON nested too deeply") from None
        if header is None:
            header = read_header_dict(obj, where, rules)
            continue
        try:
            rec = read_game(obj, header)
        except RecordError as e:
            raise RecordError(f"{where}: {e}") from None
        games.append(replace(rec, line=lineno))
    if header is None:
        raise RecordError(f"{name}: empty file, no record header")
    return header, games


class _Named(io.StringIO):
    def __init__(self, text: str, name: str) -> None:
        super().__init__(text)
        self.name = name


__all__ = ["FORMAT", "VERSION", "RecordError", "RecordHeader", "GameRecord", "RecordWriter", "check_record_run",
           "write_records", "read_records", "read_game", "read_header_dict", "game_record",
           "play_recorded", "explaining"]
