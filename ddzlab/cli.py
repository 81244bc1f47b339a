"""The ``ddzlab`` command: play, duel, solve, train, report.

    ddzlab play [--seat 0] [--agents random random] [--seed S] [--rules standard] [--landlord N]
                [--players 2] [--record FILE]
    ddzlab duel A B --deals N --seed S [--rules standard] [--jobs J] [--deal-file PATH]
                [--record FILE]
    ddzlab tournament A B C ... --deals N [--seed S] [--jobs J] [--scheduler tcp://...]
                      [--results FILE] [--out table.csv] [--record FILE]
    ddzlab evaluate A B [--protocol douzero|duplicate] [--deals N | --deal-file PATH] [--seed S] [--jobs J]
                    [--name NAME] [--limit N]
    ddzlab experiment run NAME [--deals N] [--jobs J] [--scheduler tcp://...] [--quiet]
                          [--into LABEL | --publish]
    ddzlab experiment status [NAME]
    ddzlab experiment repair NAME [--into LABEL]
    ddzlab solve HAND [--rules standard]
    ddzlab replay FILE [--game N] [--seat S] [--step] [--list]
    ddzlab agents
    ddzlab train [NAME [ARGS...]]
    ddzlab report [--full] [--only NN ...] [--user-runs]
    ddzlab --version

Agent specs: a name (``greedy``), a name with options (``ismcts:iterations=400``),
``path/to/file.py:Class`` or ``package.module:Class`` (see `ddzlab.agents.base`). Errors
are printed as ``ddzlab COMMAND: error: MESSAGE`` (exit code 2).

``play`` reads your moves from standard input, so it can be scripted::

    printf '0\\n...' | ddzlab play --seed 1
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, TextIO


from .errors import DdzError
from .parallel import WorkerError

if TYPE_CHECKING:
    from .agents.base import AgentSpec
    from .game import Game

#: the rule sets' names, for --help without importing the engine (a test checks them
#: against `ddzlab.rules.RULESETS`)
RULE_NAMES = ("standard", "mini", "homework", "wildcard")


class _Quit(Exception):
    """The human typed quit or standard input ended."""


class UsageError(DdzError):
    """Command-line arguments that name something that does not exist (a seat, a file)."""


def _checked(name: str, parse: Callable[[str], Any], ok: Callable[[Any], bool], unparsed: str,
             refused: str) -> Callable[[str], Any]:
    """An argparse type: ``parse`` the text, then accept the value if ``ok``; the messages
    (``str.format`` with ``text`` and ``value``) say what was expected."""
    def convert(text: str) -> Any:
        try:
            value = parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(unparsed.format(text=text)) from None
        if not ok(value):
            raise argparse.ArgumentTypeError(refused.format(text=text, value=value))
        return value
    convert.__name__ = name
    return convert


#: a whole number >= 1
_positive_int = _checked("_positive_int", int, lambda v: v >= 1, "{text!r} is not a whole number",
                         "must be at least 1, not {value}")
#: a seed, a whole number >= 0
_seed = _checked("_seed", int, lambda v: v >= 0, "{text!r} is not a whole number",
                 "a seed is a whole number of at least 0, not {value}")
#: a number > 0 (finite)
_positive_float = _checked("_positive_float", float, lambda v: 0 < v < float("inf"),
                           "{text!r} is not a number", "must be a number > 0, not {text}")


def _ask(prompt: str, inp: TextIO, out: TextIO) -> str:
    print(prompt, end="", file=out, flush=True)
    line = inp.readline()
    if line == "":
        print("", file=out)
        raise _Quit("end of input")
    line = line.strip()
    if line.lower() in ("quit", "exit"):
        raise _Quit("quit")
    return line


def _grouped(bits: int) -> str:
    """Cards grouped by rank for reading: ``33 4 777 BR``."""
    from .cards import format_bits
    text = format_bits(bits)
    groups: list[str] = []
    for ch in text:
        if groups and groups[-1][0] == ch:
            groups[-1] += ch
        else:
            groups.append(ch)
    return " ".join(groups) if groups else "(none)"


def _shown(move) -> str:
    """A move's cards grouped, with the flower card's reading (``4 5 6 7 8 F=9``)."""
    text = _grouped(move.cards)
    return text if move.reading is None else f"{text}={str(move).rsplit('=', 1)[1]}"


def _who(game: Game, seat: int, human: int, names: dict[int, str]) -> str:
    role = game.role(seat)
    who = "you" if seat == human else f"seat {seat} ({names[seat]})"
    return who if role == "bidder" else f"{who}, {role}"


def play_interactive(game: Game, human: int, agents: dict, inp: TextIO, out: TextIO) -> int:
    """Run ``game`` with a human at seat ``human`` and agents elsewhere; 0 when finished."""
    from .agents.base import agent_name
    from .game import Phase
    names = {s: agent_name(a) for s, a in agents.items()}
    redeals = -1
    print(f"ddzlab play: {game.rules.name} rules, you are seat {human}. "
          "Type cards like 33344458, 'pass', 'moves' for your legal moves, 'quit' to stop.",
          file=out)
    if game.phase is Phase.PLAY and game.landlord is not None:
        _announce_landlord(game, game.landlord, human, names, out)
    try:
        while game.phase is not Phase.FINISHED:
            if game.redeals != redeals:
                redeals = game.redeals
                if redeals:
                    print("Everyone passed: the cards are dealt again.", file=out)
                print(f"Your hand ({len(game.hand(human))} cards): {_grouped(game.hands[human])}",
                      file=out)
            seat = game.to_act
            assert seat is not None                 # (a seat until the game is over)
            if game.phase is Phase.BIDDING:
                if seat == human:
                    _human_bid(game, human, inp, out)
                else:
                    value = int(agents[seat].bid(game.observation(seat)))
                    game.make_bid(value, seat)
                    print(f"seat {seat} ({names[seat]}) " +
                          (f"bids {value}" if value else "passes"), file=out)
                if game.phase is Phase.PLAY and game.landlord is not None:    # (bidding chose one)
                    _announce_landlord(game, game.landlord, human, names, out)
                continue
            if seat == human:
                _human_move(game, human, inp, out)
            else:
                move = game.play(agents[seat].play(game.observation(seat)), seat)
                print(f"{_who(game, seat, human, names)} plays {_shown(move) if move.cards else 'pass'}"
                      f"   [{game.sizes[seat]} left]", file=out)
    except _Quit as q:
        print(f"Game abandoned ({q}).", file=out)
        return 1
    except KeyboardInterrupt:
        print("\nGame abandoned (interrupted).", file=out)
        return 130
    _announce_result(game, human, names, out)
    return 0


def _announce_landlord(game: Game, lord: int, human: int, names: dict[int, str], out: TextIO) -> None:
    who = "you are" if lord == human else f"seat {lord} ({names[lord]}) is"
    print(f"Landlord: {who} the landlord, base score {game.bid}. "
          f"Kitty: {_grouped(game.deal.kitty)}", file=out)


def _human_bid(game: Game, human: int, inp: TextIO, out: TextIO) -> None:
    from .moves import PASS_WORDS
    while True:
        options = game.legal_bids()
        text = _ask(f"Your bid ({' / '.join(map(str, options))}; 0 = pass): ", inp, out)
        try:
            value = 0 if text.lower() in PASS_WORDS else int(text)
        except ValueError:
            print(f"Rejected: {text!r} is not a number; bid one of {options}.", file=out)
            continue
        try:
            game.make_bid(value, human)
            return
        except DdzError as e:
            print(f"Rejected: {e}.", file=out)


def _human_move(game: Game, human: int, inp: TextIO, out: TextIO) -> None:
    print(f"Your hand: {_grouped(game.hands[human])}   multiplier x{game.multiplier}", file=out)
    if game.last_move is None:
        print("You lead.", file=out)
    else:
        print(f"To beat: {_shown(game.last_move)} ({game.last_move.kind.label}) "
              f"from seat {game.last_seat}", file=out)
    while True:
        text = _ask("Your move: ", inp, out)
        if text.lower() in ("moves", "hint", "?"):
            moves = game.legal_moves()
            print(f"{len(moves)} legal: " + ", ".join(map(str, moves[:60])) +
                  (" ..." if len(moves) > 60 else ""), file=out)
            continue
        if not text:
            print("Rejected: empty input; type cards such as 334 or 'pass'.", file=out)
            continue
        try:
            move = game.play(text, human)
            said = f"You play {_shown(move)}" if move.cards else "You pass"
            print(f"{said}   [{game.sizes[human]} left]", file=out)
            return
        except DdzError as e:
            print(f"Rejected: {e}.", file=out)


def _announce_result(game: Game, human: int, names: dict[int, str], out: TextIO) -> None:
    w, scores = game.winner, game.scores
    assert w is not None and scores is not None     # (the game is over)
    print(f"Game over: {'you' if w == human else f'seat {w} ({names[w]})'} went out first.",
          file=out)
    if game.landlord is not None:
        side = "landlord" if game.landlord_won else "farmers"
        print(f"The {side} win. Bombs/rockets: {game.bombs}"
              f"{', spring' if game.spring else ''}; base {game.bid}, multiplier x{game.multiplier}.",
              file=out)
    for s, pts in enumerate(scores):
        print(f"  seat {s}{' (you)' if s == human else ''} {game.role(s)}: {pts:+d}", file=out)


# -- subcommands -----------------------------------------------------------------------
def cmd_play(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    from .agents.base import agent_name, make_agent
    from .game import Game
    from .rules import get_rules
    rules = get_rules(args.rules)
    game = Game(rules=rules, seed=args.seed, landlord=args.landlord,
                first_bidder=args.first_bidder, players=args.players)
    if not 0 <= args.seat < game.players:
        raise UsageError(f"--seat {args.seat} is not a seat of this {game.players}-player game: "
                         f"choose 0..{game.players - 1}")
    others = [s for s in range(game.players) if s != args.seat]
    specs = list(args.agents) or ["greedy"]
    if len(specs) not in (1, len(others)):
        raise UsageError(f"--agents got {len(specs)} specs for the {len(others)} other seats of this "
                         f"{game.players}-player game: give one (it plays every other seat) or {len(others)}")
    agents = {s: make_agent(specs[i % len(specs)], seed=None if args.seed is None else
                            [args.seed, s]) for i, s in enumerate(others)}
    if not args.record:
        return play_interactive(game, args.seat, agents, inp, out)
    from .records import RecordWriter, explaining, game_record
    wrapped, evals = explaining(agents)
    code = play_interactive(game, args.seat, wrapped, inp, out)
    seats = ["human" if s == args.seat else agent_name(agents[s]) for s in range(game.players)]
    with RecordWriter(args.record, rules=rules, players=game.players, agents=seats,
                      source="play") as w:        # games of any seed may share a file
        w.write(game_record(game, seats, evals, index=w.count, seed=args.seed))
    print(f"Game recorded in {args.record} (game {w.count - 1}).", file=out)
    return code


def cmd_duel(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    from .agents.base import make_agent
    from .rules import get_rules
    import pandas as pd

    from .arena import duel
    rules = get_rules(args.rules)
    deals = args.deal_file if args.deal_file else args.deals
    for spec in (args.a, args.b):
        make_agent(spec, seed=0)         # a bad spec fails here, not in a worker
    try:
        df = duel(args.a, args.b, deals, rules=rules, n_jobs=args.jobs, seed=args.seed,
                  progress=not args.quiet, backend=args.backend, results=args.results,
                  record=args.record)
    except (KeyboardInterrupt, WorkerError) as e:
        saved = (f"finished deals are saved in {args.results}: rerun the same command to resume"
                 if args.results else "nothing was saved (pass --results FILE to make a duel resumable)")
        what = "interrupted" if isinstance(e, KeyboardInterrupt) else f"error: {e}"
        print(f"\nddzlab duel: {what}; {saved}", file=sys.stderr)
        return 130 if isinstance(e, KeyboardInterrupt) else 2
    print(f"{args.a} (A) vs {args.b} (B), {df.attrs.get('deals')} deals x 2 sides, "
          f"{rules.name} rules, seat 0 landlord:", file=out)
    with pd.option_context("display.float_format", "{:.3f}".format, "display.width", 120):
        print(df.to_string(), file=out)
    return 0


def cmd_evaluate(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    """A against B under one of the field's protocols, stored as an experiment (resumable)."""
    import pandas as pd

    from .agents.base import make_agent
    from .experiments.protocols import evaluate
    for spec in (args.a, args.b):
        make_agent(spec, seed=0)         # a bad spec fails here, not in a worker
    deals = args.deal_file if args.deal_file else args.deals
    try:
        df = evaluate(args.a, args.b, protocol=args.protocol, deals=deals, seed=args.seed, name=args.name,
                      n_jobs=args.jobs, progress=not args.quiet, limit=args.limit)
    except (KeyboardInterrupt, WorkerError) as e:
        what = "interrupted" if isinstance(e, KeyboardInterrupt) else f"error: {e}"
        print(f"\nddzlab evaluate: {what}; the finished games are stored: rerun the same command to resume",
              file=sys.stderr)
        return 130 if isinstance(e, KeyboardInterrupt) else 2
    if args.protocol == "duplicate":
        print(f"{args.a} (A) vs {args.b} (B), protocol duplicate: {int(df.loc['A - B', 'deals']):,} deals x 6 "
              "seatings (Botzone's duplicate format). Botzone's scores: total, mean per deal [95% CI over "
              "deals; A - B paired by deal], and the share of landlord games won:", file=out)
    else:
        print(f"{args.a} (A) vs {args.b} (B), protocol {args.protocol}: {int(df.loc['combined', 'deals']):,} deals "
              "x 2 (both role assignments on the same deals). WP and ADP (DouZero's points: 2 x 2^bombs a game) "
              "[95% CI; combined: paired by deal]:", file=out)
    with pd.option_context("display.float_format", "{:.3f}".format, "display.width", 120):
        print(df.to_string(), file=out)
    print(f"stored as experiment {df.attrs['experiment']} in {df.attrs['store']} (rerun to resume; "
          "load_games reads it)", file=out)
    return 0


def _writable(path: str, option: str) -> None:
    """Refuse, before a long run, an output file that cannot be written when it ends."""
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{option} {path} is a folder: give a file name")
    if not target.resolve().parent.is_dir():
        raise UsageError(f"{option} {path}: the folder {target.parent} does not exist")


def _entrant_labels(specs: Sequence[str]) -> dict[str, AgentSpec]:
    """Tournament entrants from the command line: label -> spec, a repeated spec numbered
    (``greedy``, ``greedy#2``) so that an agent can meet a copy of itself."""
    labels: dict[str, AgentSpec] = {}
    for spec in specs:
        label, n = spec, 1
        while label in labels:
            n += 1
            label = f"{spec}#{n}"
        labels[label] = spec
    return labels


def cmd_tournament(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    from .rules import get_rules
    from .arena import tournament
    rules = get_rules(args.rules)
    deals = args.deal_file if args.deal_file else args.deals
    if args.out:
        _writable(args.out, "--out")
    try:
        df = tournament(_entrant_labels(args.agents), deals, rules, n_jobs=args.jobs, scheduler=args.scheduler,
                        progress=not args.quiet, seed=args.seed, results=args.results,
                        record=args.record)
    except (KeyboardInterrupt, WorkerError) as e:
        kept = f"; the finished deals are in {args.results}, rerun to resume" if args.results else ""
        what = "interrupted" if isinstance(e, KeyboardInterrupt) else f"error: {e}"
        print(f"ddzlab tournament: {what}{kept}", file=sys.stderr)
        return 130 if isinstance(e, KeyboardInterrupt) else 2
    print(f"Round robin of {len(df.attrs['agents'])} agents, {df.attrs['deals']} deals x 2 sides "
          f"per pair, {rules.name} rules, seat 0 landlord. WP and ADP of A against B "
          "[95% CI; combined: deals as pairs]:", file=out)
    print(tournament_text(df), file=out)
    if args.out:
        df.to_csv(args.out, index=False, lineterminator="\n")
        print(f"table written to {args.out}", file=out)
    return 0


def tournament_text(df) -> str:
    """A tournament frame as text: one line per pair (A listed first), then the WP matrix."""
    import pandas as pd
    agents = df.attrs["agents"]
    lines = []
    for i, a in enumerate(agents):
        for b in agents[i + 1:]:
            rows = df[(df.a == a) & (df.b == b)].set_index("role")
            if not len(rows):
                continue
            c = rows.loc["combined"]
            lines.append({"A": a, "B": b, "WP": f"{c.WP:.3f} [{c.WP_lo:.3f}, {c.WP_hi:.3f}]",
                          "WP landlord": f"{rows.loc['landlord', 'WP']:.3f}",
                          "WP farmers": f"{rows.loc['farmers', 'WP']:.3f}",
                          "ADP": f"{c.ADP:+.3f} [{c.ADP_lo:+.3f}, {c.ADP_hi:+.3f}]",
                          "ms/move A": f"{1e3 * c.sec_per_move_a:.3g}",
                          "ms/move B": f"{1e3 * c.sec_per_move_b:.3g}"})
    pairs = pd.DataFrame(lines).to_string(index=False)
    comb = df[df.role == "combined"].pivot(index="a", columns="b", values="WP")
    comb = comb.reindex(index=agents, columns=agents).rename_axis(index=None, columns=None)
    matrix = comb.to_string(float_format="{:.3f}".format, na_rep="-")
    return f"{pairs}\n\nWP of the row agent against the column agent (combined):\n{matrix}"


def cmd_experiment(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    import pandas as pd

    from .experiments import experiment_dir, get_experiment, repair_experiment, run_experiment, status
    if args.action == "status":
        df = status()
        if args.name is not None:                  # NAME: that experiment's row only
            if args.name not in set(df.experiment):
                raise UsageError(f"no experiment {args.name!r} in the catalog or on disk; known: "
                                 f"{', '.join(df.experiment) or 'none'}")
            df = df[df.experiment == args.name]
        problems = df[df["problem"] != ""] if len(df) else df
        with pd.option_context("display.width", 160, "display.max_columns", 20):
            print(df.drop(columns="problem").to_string(index=False, float_format="{:.3g}".format) if len(df)
                  else "no experiments", file=out)
        for _, row in problems.iterrows():
            print(f"{row['experiment']} ({row['store']}): {row['problem']}", file=out)
        return 1 if len(problems) else 0
    if not args.name:
        raise UsageError(f"ddzlab experiment {args.action} needs the experiment's NAME (see: ddzlab experiment "
                         "status)")
    exp = get_experiment(args.name)
    if args.action == "repair":
        done = repair_experiment(exp, into=args.into)
        for d in done.damage:
            print(f"damaged: {d.describe()}", file=out)
        for what, count in done.dropped.items():
            print(f"dropped: {count:,} {what}", file=out)
        if done.backup is not None:
            print(f"the damaged file is kept as {done.backup}", file=out)
        print(f"{exp.name}: {done.kept:,} games kept", file=out)
        return 0
    folder = experiment_dir(exp.name)
    try:
        games = run_experiment(exp, deals=args.deals, n_jobs=args.jobs, scheduler=args.scheduler,
                               progress=not args.quiet, into=args.into, publish=args.publish)
    except (KeyboardInterrupt, WorkerError) as e:
        what = "interrupted" if isinstance(e, KeyboardInterrupt) else f"error: {e}"
        print(f"\nddzlab experiment: {what}; the finished games are stored: rerun the same "
              "command to resume", file=sys.stderr)
        return 130 if isinstance(e, KeyboardInterrupt) else 2
    where = Path(games.attrs["store"])
    print(f"{exp.name}: {len(games):,} games stored in {where} ({games.attrs['deals_complete']} of "
          f"{games.attrs['deals_planned']} deals complete for every pair)", file=out)
    if where != folder:
        print(f"a user run: the published store {folder} is unchanged and is what `ddzlab report` reads "
              f"(`ddzlab report --user-runs` reads this run; `ddzlab experiment run {exp.name} --publish` "
              "plays into the published store)", file=out)
    return 0


def cmd_solve(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    from .cards import Hand
    from .rules import get_rules
    from .analysis.report import solve_lines
    rules = get_rules(args.rules)
    if "F" in args.hand.upper() and rules.name != "wildcard":
        raise UsageError(f"{args.hand!r} holds the flower card F, which only the wildcard rules have: "
                         "add --rules wildcard")
    for line in solve_lines(Hand(args.hand), rules):
        print(line, file=out, flush=True)
    return 0


def cmd_replay(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    """A game record in the terminal, step by step, with each agent's evaluation."""
    from .records import read_records
    from .replay import replay_lines, summary_line
    header, games = read_records(args.file)
    if args.list:
        for rec in games:
            print(summary_line(rec), file=out)
        return 0
    chosen = [rec for rec in games if rec.index == args.game]
    if not chosen:
        numbers = ", ".join(str(r.index) for r in games[:20]) + (" ..." if len(games) > 20 else "")
        raise UsageError(f"{args.file} has no game {args.game}; its games: {numbers or 'none'}")
    rec = chosen[0]
    if args.seat is not None and not 0 <= args.seat < rec.players:
        raise UsageError(f"--seat {args.seat} is not a seat of this {rec.players}-player game")
    for line in replay_lines(rec, args.seat):
        print(line, file=out, flush=True)
        if args.step and line.startswith("  seat "):
            if inp.readline().strip().lower() in ("q", "quit"):
                return 0
    return 0


def cmd_agents(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    """Every agent name with one line on what it is."""
    from .agents.base import describe_agents
    described = describe_agents()
    width = max(map(len, described))
    for name, line in described.items():
        print(f"{name:<{width}}  {line}", file=out)
    print("\nAlso: path/to/file.py:Class or package.module:Class (your own agent; see docs/my_agent.py); "
          "options as name:key=value,...", file=out)
    return 0


def cmd_train(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    from .agents.base import available_trainers
    from . import qtraining  # noqa: F401  (registers "ddzlab train qlearning")
    from . import qstudy  # noqa: F401  (registers "ddzlab train qstudy")
    from .env import dmc  # noqa: F401  (registers "ddzlab train dmc"; torch only when it runs)
    trainers = available_trainers()
    if not args.name:
        if trainers:
            print("available trainers: " + ", ".join(trainers), file=out)
        else:
            print("no trainers registered yet (agents register them with "
                  "ddzlab.agents.register_trainer)", file=out)
        return 0
    trainer = trainers.get(args.name.lower())
    if trainer is None:
        raise UsageError(f"unknown trainer {args.name!r}; available: {', '.join(trainers) or 'none'}")
    return int(trainer(list(args.args)) or 0)


def cmd_report(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    from .report import ReportError, publish_results, run_report
    if args.regenerate:
        publish_results(out)
        return 0
    try:
        run_report(full=args.full, only=args.only, out=out, factor=args.factor, user_runs=args.user_runs)
    except ReportError as e:
        print(f"ddzlab report: error: {e}", file=sys.stderr)
        return 1
    return 0


def build_parser() -> argparse.ArgumentParser:
    from . import __version__
    p = argparse.ArgumentParser(prog="ddzlab", description="Dou Dizhu research lab.")
    p.add_argument("--version", action="version", version=f"ddzlab {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    rules_help = f"rule set: {', '.join(RULE_NAMES)} (default standard)"

    sp = sub.add_parser("play", help="play a game in the terminal against two agents")
    sp.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    sp.add_argument("--agents", nargs="*", default=["greedy"],
                    help="agent specs for the other seats: one for all, or one per seat "
                         "(`ddzlab agents` lists them; default greedy)")
    sp.add_argument("--seed", type=_seed, default=None, help="seed of the deal and the agents")
    sp.add_argument("--rules", default="standard", help=rules_help)
    sp.add_argument("--landlord", type=int, default=None,
                    help="fixed landlord seat, no bidding (DouZero evaluation mode)")
    sp.add_argument("--first-bidder", type=int, default=0)
    sp.add_argument("--players", type=int, choices=(2, 3), default=None,
                    help="2 for the two-player mode (no kitty, no landlord; docs/definitions.md#two-player-mode)")
    sp.add_argument("--record", default=None, metavar="FILE",
                    help="append the game to this game record (JSON lines; see ddzlab.records); "
                         "a record of other agents or rules is refused")
    sp.set_defaults(func=cmd_play)

    sd = sub.add_parser("duel", help="A vs B on fixed deals, sides swapped: WP and ADP")
    sd.add_argument("a")
    sd.add_argument("b")
    sd.add_argument("--deals", type=_positive_int, default=1000,
                    help="number of deals generated from --seed")
    sd.add_argument("--deal-file", default=None, help="read deals from this file instead")
    sd.add_argument("--seed", type=_seed, default=0)
    sd.add_argument("--rules", default="standard", help=rules_help)
    sd.add_argument("--jobs", type=_positive_int, default=1, help="parallel workers (joblib)")
    sd.add_argument("--backend", default=None, help="joblib backend, e.g. dask")
    sd.add_argument("--quiet", action="store_true", help="no progress bar")
    sd.add_argument("--results", default=None,
                    help="CSV that finished deals are appended to; rerun with it to resume")
    sd.add_argument("--record", default=None, metavar="FILE",
                    help="write every game (moves, evaluations) to this game record (JSON lines; "
                         "appended to when resuming with --results); a record of another run is refused")
    sd.set_defaults(func=cmd_duel)

    sv = sub.add_parser("evaluate", help="A vs B under a published protocol (douzero, duplicate), stored as an "
                                         "experiment")
    sv.add_argument("a")
    sv.add_argument("b")
    sv.add_argument("--protocol", choices=("douzero", "duplicate"), default="douzero",
                    help="douzero: both role assignments on the same deals, DouZero's WP and ADP (default); "
                         "duplicate: every deal in the six seatings of A and B, Botzone's scores")
    sv.add_argument("--deals", type=_positive_int, default=None,
                    help="number of deals generated from --seed (default 10,000; duplicate 2,000)")
    sv.add_argument("--deal-file", default=None,
                    help="read deals from this file instead: a ddzlab deal file, or DouZero's eval_data.pkl "
                         "(read without unpickling anything but card lists)")
    sv.add_argument("--limit", type=_positive_int, default=None, help="play only the first N deals of the set")
    sv.add_argument("--seed", type=_seed, default=0)
    sv.add_argument("--jobs", type=_positive_int, default=1, help="parallel workers (joblib)")
    sv.add_argument("--name", default=None,
                    help="the run's name in data/experiments-user/ (default: eval-PROTOCOL-<checksum of the command>)")
    sv.add_argument("--quiet", action="store_true", help="no progress bar")
    sv.set_defaults(func=cmd_evaluate)

    sn = sub.add_parser("tournament", help="round robin of agents on the same deals, sides swapped")
    sn.add_argument("agents", nargs="+", metavar="AGENT", help="two or more agent specs")
    sn.add_argument("--deals", type=_positive_int, default=200,
                    help="number of deals generated from --seed (default 200)")
    sn.add_argument("--deal-file", default=None, help="read deals from this file instead")
    sn.add_argument("--seed", type=_seed, default=0)
    sn.add_argument("--rules", default="standard", help=rules_help)
    sn.add_argument("--jobs", type=_positive_int, default=1, help="parallel workers (joblib)")
    sn.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="run on an existing dask cluster, e.g. tcp://10.0.0.5:8786")
    sn.add_argument("--results", default=None,
                    help="CSV that finished deals are appended to; rerun with it to resume")
    sn.add_argument("--out", default=None, help="write the tidy table (one row per pair and role) here")
    sn.add_argument("--quiet", action="store_true", help="no progress bar")
    sn.add_argument("--record", default=None, metavar="FILE",
                    help="write every game (moves, evaluations) to this game record (JSON lines; "
                         "appended to when resuming with --results); a record of another run is refused")
    sn.set_defaults(func=cmd_tournament)

    se = sub.add_parser("experiment", help="run a stored experiment of the catalog (resumable), show "
                                           "what is stored, or repair a damaged store")
    se.add_argument("action", choices=("run", "status", "repair"))
    se.add_argument("name", nargs="?", help="experiment name (ddzlab experiment status lists them; "
                                            "with status: show that experiment only)")
    se.add_argument("--deals", type=_positive_int, default=None,
                    help="play only the first N deals of its deal set (default: all)")
    se.add_argument("--jobs", type=_positive_int, default=1, help="parallel workers (joblib)")
    se.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="run on an existing dask cluster, e.g. tcp://10.0.0.5:8786")
    se.add_argument("--quiet", action="store_true", help="no progress bar")
    se.add_argument("--into", default=None, metavar="LABEL",
                    help="a user run of that name in data/experiments-user/ (a run that adds games to a "
                         "published experiment goes to data/experiments-user/NAME anyway)")
    se.add_argument("--publish", action="store_true",
                    help="play into the published store (data/experiments/NAME) and record its new size: "
                         "the committed numbers change")
    se.set_defaults(func=cmd_experiment)

    ss = sub.add_parser("solve", help="analyse a hand")
    ss.add_argument("hand")
    ss.add_argument("--rules", default="standard", help=rules_help)
    ss.set_defaults(func=cmd_solve)

    sy = sub.add_parser("replay", help="step through a recorded game (--record FILE of play, duel, tournament)")
    sy.add_argument("file", help="a game record (JSON lines)")
    sy.add_argument("--game", type=int, default=0, help="which game of the file (default 0; --list shows them)")
    sy.add_argument("--seat", type=int, default=None,
                    help="show only what this seat sees (its own hand; the others as card counts)")
    sy.add_argument("--step", action="store_true", help="wait for Enter after each bid or move (q quits)")
    sy.add_argument("--list", action="store_true", help="list the games of the file, one line each")
    sy.set_defaults(func=cmd_replay)

    sa = sub.add_parser("agents", help="list every agent, one line each")
    sa.set_defaults(func=cmd_agents)

    st = sub.add_parser("train", help="run a registered trainer (no name: list them)")
    st.add_argument("name", nargs="?")
    st.add_argument("args", nargs=argparse.REMAINDER)
    st.set_defaults(func=cmd_train)

    sr = sub.add_parser("report", help="execute the numbered notebooks; write figures/, report/index.html "
                                       "and (quick scale) data/results.json + the README's results block")
    sr.add_argument("--full", action="store_true",
                    help="full scale (hours); figures and document go to report/full/, beside the committed ones")
    sr.add_argument("--factor", type=_positive_float, default=1.0, metavar="F",
                    help="multiply the quick sizes by F (never beyond full); output goes to report/xF/")
    sr.add_argument("--only", nargs="+", action="extend", metavar="NN",
                    help="run only these notebook numbers; the document keeps the others' last parts")
    sr.add_argument("--user-runs", action="store_true",
                    help="the notebooks read the user runs of the experiments (data/experiments-user/NAME, "
                         "from `ddzlab experiment run NAME --deals N`); output in report/user/, nothing published")
    sr.add_argument("--regenerate", action="store_true",
                    help="run nothing: rewrite the README's headline block and docs/results.md from "
                         "data/results.json (e.g. after a merge)")
    sr.set_defaults(func=cmd_report)
    return p


def main(argv: Optional[Sequence[str]] = None, stdin: Optional[TextIO] = None,
         stdout: Optional[TextIO] = None) -> int:
    """Entry point of the ``ddzlab`` console script; returns the exit code."""
    command = "ddzlab"
    try:
        args = build_parser().parse_args(argv)   # imports every agent: can take a second
        command = f"ddzlab {args.command}"
        return args.func(args, stdin or sys.stdin, stdout or sys.stdout)
    except DdzError as e:                  # every ddzlab error, AgentError included
        print(f"{command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\n{command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:         # the reader went away (`ddzlab solve ... | head`): stop quietly
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0
    except OSError as e:                   # a file that cannot be read or written
        where = f" {e.filename}" if e.filename else ""
        print(f"{command}: error: cannot use{where}: {e.strerror or e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
