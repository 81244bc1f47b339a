"""Training and measuring the Q-learning player (`ddzlab.agents.qlearning`).

* `seed_protocol`: du-guai's own evaluation (docs/definitions.md#q-learning-player). Every game the cards are dealt,
  the seats shuffled, each seat in turn asks du-guai's SVM (`ddzlab.bidding.seed_svm`) and the
  first "call" becomes landlord (nobody calls: redeal); the two opponents play uniformly
  among the abstract actions offered to them (the greedy split's candidates). "Total win
  rate" counts as du-guai counts it: when a farmer goes out both farmers win, so it is
  (landlord wins + farmer wins) / games from the tested seat.
* `train`: self-play with shared tables (du-guai's setup), or one learner against fixed
  opponents (du-guai's random players, `greedy`, or per game two `greedy` or two `rulev1`),
  or a mix; one seeded numpy Generator drives deals, seats, exploration and
  the opponents, so a run is reproducible and a resumed run (`resume=True`, from the
  checkpoint in ``out``) ends with exactly the table of an uninterrupted one.
* `evaluate`: the greedy policy of a table on a fixed deal set, DouZero's layout (seat 0
  landlord, each deal played with the table as landlord and as farmers) against a fixed
  opponent: WP and ADP by role. Training calls it every ``eval_every`` games.

The loops drive `Game` directly and give the learner only what its seat can see (its hand,
its legal moves, hand sizes, the move to beat); the agent used in the arena works from an
`Observation` with the same functions (`ddzlab.agents.qlearning.decide_obs`).

``ddzlab train qlearning --games N --seed S --out FILE [--resume] [--eval-every K]``.
"""
from __future__ import annotations

import argparse
import sys
import json
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np
import pandas as pd

from .agents.base import AgentSpec, make_agent, register_trainer
from .agents.greedy import GreedyAgent
from .agents.qlearning import (ALPHA, EPSILON, GAMMA, REWARDS, RULES, TIES, Decision, Learner,
                               QTables, SparseTables, choose, decide)
from .agents.qlearning.tables import load_file
from .stats import wilson
from .deals import Deal, deal_cards, generate_deals
from .errors import ModelFileError
from .game import Game, Phase
from .moves import Move

Controller = Callable[[Game, int], Move]
OPPONENTS = ("self", "split_random", "greedy", "mixed", "greedy_rulev1")


# -- du-guai's bidding ---------------------------------------------------------------
_CALLS: dict[tuple, bool] = {}


def svm_calls(bits: int) -> bool:
    """Whether du-guai's SVM calls the landlord with this 17-card hand (memoised by its
    three features, which are all the SVM sees)."""
    from .bidding.features import SeedFeatures
    from .cards import Hand
    hand = Hand.from_bits(bits)
    key = tuple(SeedFeatures().row(hand))
    hit = _CALLS.get(key)
    if hit is None:
        from .bidding.models import seed_svm
        from .bidding.data import hands_frame
        hit = _CALLS[key] = bool(seed_svm().predict(hands_frame([hand]))[0] == 1)
    return hit


def seed_deal(rng: np.random.Generator) -> tuple[Deal, int, int]:
    """A deal with a landlord, as du-guai finds one: seats 0, 1, 2 ask the SVM in turn and
    the first "call" is landlord; if nobody calls, deal again. (deal, landlord, redeals)."""
    redeals = 0
    while True:
        deal = deal_cards(rng=rng)
        for s in range(3):
            if svm_calls(deal.hands[s]):
                return deal, s, redeals
        redeals += 1


# -- controllers ----------------------------------------------------------------------
def _decision(game: Game, seat: int, role_bug: bool = False) -> Decision:
    assert game.landlord is not None               # decisions are made in the play phase
    return decide(game.hands[seat], game.legal_moves(), seat, game.landlord, game.sizes,
                  game.last_move, game.last_seat, role_bug)


def learner_controller(learner: Learner, role_bug: bool = False) -> Controller:
    def act(game: Game, seat: int) -> Move:
        d = _decision(game, seat, role_bug)
        return d.move(learner.act(d))
    return act


def table_controller(tables: Union[QTables, SparseTables], rng: np.random.Generator, epsilon: float = 0.0,
                     role_bug: Optional[bool] = None, tie: Optional[str] = None,
                     caution: Optional[float] = None) -> Controller:
    """The table's ε-greedy policy, without learning (``tie`` and ``role_bug`` default to
    the table's training settings)."""
    trained = tables.meta.get("config", {})
    prior = (tie or trained.get("tie", "random")) == "prior"
    bug = trained.get("role_bug", False) if role_bug is None else role_bug
    keep = trained.get("caution", 0.0) if caution is None else caution
    min_visits = trained.get("min_visits", 0)

    def act(game: Game, seat: int) -> Move:
        d = _decision(game, seat, bug)
        return d.move(choose(tables.table(d.table)[d.state], d.actions, epsilon, rng,
                             d.order if prior else None, tables.visits(d.table)[d.state], keep,
                             min_visits))
    return act


def split_random_controller(rng: np.random.Generator) -> Controller:
    """du-guai's random player: uniform among the offered abstract actions."""
    def act(game: Game, seat: int) -> Move:
        d = _decision(game, seat)
        return d.move(d.actions[int(rng.random() * len(d.actions))])
    return act


def agent_controller(agent: Any) -> Controller:
    """Any `ddzlab.agents` agent, asked with its seat's `Observation`."""
    def act(game: Game, seat: int) -> Move:
        return agent.play(game.observation(seat))
    return act


def play_out(game: Game, controllers: Sequence[Controller]) -> Game:
    """Play ``game`` (already in the play phase) to the end."""
    play = game.play
    while game.phase is Phase.PLAY:
        s = game.to_act
        assert s is not None                       # someone is to act in the play phase
        play(controllers[s](game, s), s)
    return game


def _side_won(game: Game, seat: int) -> bool:
    return (game.winner == game.landlord) == (seat == game.landlord)


# -- du-guai's protocol --------------------------------------------------------------
def seed_protocol(agent: Union[AgentSpec, QTables, SparseTables] = "qlearning", games: int = 1000,
                  seed: int = 0, progress: bool = False,
                  opponent: Optional[Callable[[np.random.Generator], Controller]] = None) -> pd.DataFrame:
    """du-guai's evaluation (module docstring): ``agent`` in a shuffled seat against two
    seed random players. ``agent``: a `make_agent` spec, or a `QTables` / `SparseTables` (played greedily).

    One row per game: ``seat``, ``role`` (landlord / down / up), ``won`` (du-guai's count:
    a farmer win is a win for both farmers), ``redeals``. The deals and seats depend only
    on ``seed``, so two agents measured with one seed meet the same games.
    ``df.attrs["total_win_rate"]`` is du-guai's figure. ``opponent``: a factory
    ``f(rng) -> controller`` replacing du-guai's random players (default
    `split_random_controller`).
    """
    deal_rng = np.random.default_rng([seed, 0])
    opp = (opponent or split_random_controller)(np.random.default_rng([seed, 1]))
    if isinstance(agent, (QTables, SparseTables)):
        me = table_controller(agent, np.random.default_rng([seed, 2]))
    else:
        me = agent_controller(make_agent(agent, seed=np.random.default_rng([seed, 2])))
    rows = []
    it: Any = range(games)
    if progress:
        from tqdm.auto import tqdm
        it = tqdm(it, desc="seed protocol", unit="game")
    for i in it:
        deal, lord, redeals = seed_deal(deal_rng)
        seat = int(deal_rng.integers(3))
        game = play_out(Game(deal, landlord=lord), [me if s == seat else opp for s in range(3)])
        rows.append((i, seat, game.role(seat), _side_won(game, seat), redeals))
    df = pd.DataFrame(rows, columns=["game", "seat", "role", "won", "redeals"])
    df.attrs["total_win_rate"] = float(df.won.mean()) if len(df) else math.nan
    return df


def protocol_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Win rate with a 95% Wilson interval, by role and in total."""
    out = []
    for name, part in [*df.groupby("role", sort=False), ("total", df)]:
        w, n = int(part.won.sum()), len(part)
        lo, hi = wilson(w, n)
        out.append((name, w / n if n else math.nan, lo, hi, n))
    return pd.DataFrame(out, columns=["role", "win_rate", "lo", "hi", "n"]).set_index("role")


# -- evaluation on fixed deals --------------------------------------------------------
def evaluate(tables: QTables, deals: Union[Sequence[Deal], int] = 200, opponent: str = "split_random",
             seed: int = 0, role_bug: Optional[bool] = None, tie: Optional[str] = None) -> pd.DataFrame:
    """The table's greedy policy against ``opponent`` ("split_random", "greedy" or a
    `make_agent` spec) on fixed deals, seat 0 landlord, each deal played twice (the table
    as landlord, then as both farmers). One row per game: ``deal``, ``landlord`` (the table
    was landlord), ``won``, ``points`` (±2**bombs)."""
    if isinstance(deals, int):
        deals = generate_deals(deals, seed=10_000 + seed)
    rng = np.random.default_rng([seed, 3])
    me = table_controller(tables, rng, role_bug=role_bug, tie=tie)
    if opponent == "split_random":
        opp = split_random_controller(np.random.default_rng([seed, 4]))
    else:
        opp = agent_controller(make_agent(opponent, seed=np.random.default_rng([seed, 4])))
    rows = []
    for i, deal in enumerate(deals):
        for lord in (True, False):
            ctl = [me, opp, opp] if lord else [opp, me, me]
            g = play_out(Game(deal, landlord=0), ctl)
            won = bool(g.landlord_won) == lord
            rows.append((i, lord, won, (1 << g.bombs) * (1 if won else -1)))
    return pd.DataFrame(rows, columns=["deal", "landlord", "won", "points"])


def eval_summary(df: pd.DataFrame) -> dict[str, float]:
    """WP and ADP by role and combined, with 95% intervals (Wilson / normal)."""
    out: dict[str, float] = {}
    for name, part in (("landlord", df[df.landlord]), ("farmers", df[~df.landlord]),
                       ("combined", df)):
        w, n = int(part.won.sum()), len(part)
        lo, hi = wilson(w, n)
        pts = part.points.to_numpy(float)
        half = 1.96 * pts.std(ddof=1) / math.sqrt(n) if n > 1 else math.nan
        out.update({f"wp_{name}": w / n, f"wp_{name}_lo": lo, f"wp_{name}_hi": hi,
                    f"adp_{name}": float(pts.mean()), f"adp_{name}_lo": float(pts.mean() - half),
                    f"adp_{name}_hi": float(pts.mean() + half)})
    return out


# -- training -------------------------------------------------------------------------
@dataclass
class TrainConfig:
    """What a training run is: everything that decides its result."""
    games: int = 20_000
    seed: int = 0
    alpha: float = ALPHA
    gamma: float = GAMMA
    epsilon: float = EPSILON
    rule: str = "standard"               # or "seed", or "mc" (Monte Carlo returns)
    opponents: str = "self"              # self | split_random | greedy | mixed | greedy_rulev1
    role_bug: bool = False
    tie: str = "random"                  # or "prior" (ddzlab's tie-break, not du-guai's)
    q_init: float = 0.0                  # du-guai starts at 0; e.g. -40 is pessimistic
    rewards: str = "seed"                # or "outcome" (only ±40 at the end)
    caution: float = 0.0                 # > 0: act on value − caution/√visits (ddzlab)
    average: bool = False                # α = max(alpha, 1/visits): running means (ddzlab)
    min_visits: int = 0                  # > 0: leave the prior's action only for actions
                                         # tried this often in the state (ddzlab)
    eval_every: int = 0                  # 0: no periodic evaluation
    eval_games: int = 200
    eval_opponent: str = "split_random"

    def check(self) -> None:
        if self.opponents not in OPPONENTS:
            raise ValueError(f"opponents={self.opponents!r}; use one of {', '.join(OPPONENTS)}")
        if self.rewards not in REWARDS:
            raise ValueError(f"rewards={self.rewards!r}; use one of {', '.join(REWARDS)}")
        if self.tie not in TIES:
            raise ValueError(f"tie={self.tie!r}; use one of {', '.join(TIES)}")
        if self.rule not in RULES:
            raise ValueError(f"rule={self.rule!r}; use one of {', '.join(RULES)}")
        if self.games < 0 or self.eval_every < 0 or self.eval_games < 1:
            raise ValueError("games and eval_every must be ≥ 0, eval_games ≥ 1")
        if not (0 < self.alpha <= 1 and 0 <= self.gamma <= 1 and 0 <= self.epsilon <= 1):
            raise ValueError(f"alpha {self.alpha}, gamma {self.gamma}, epsilon {self.epsilon}: "
                             "need 0 < alpha ≤ 1 and gamma, epsilon in [0, 1]")

    def same_run(self, other: "TrainConfig") -> list[str]:
        """Fields (other than the length) in which two configs differ."""
        a, b = asdict(self), asdict(other)
        return [k for k in a if k != "games" and a[k] != b[k]]


@dataclass
class TrainResult:
    tables: QTables
    config: TrainConfig
    history: pd.DataFrame
    games_done: int
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    @property
    def games_per_second(self) -> float:
        return self.extra.get("trained_now", 0) / self.seconds if self.seconds else math.nan


def _train_one(tables: QTables, cfg: TrainConfig, rng: np.random.Generator,
               greedy: Controller) -> None:
    deal, lord, _ = seed_deal(rng)
    seat = int(rng.integers(3))          # the shuffled seat of the learner (used when alone)
    mode = cfg.opponents
    if mode == "mixed":
        mode = ("self", "split_random", "greedy")[int(rng.integers(3))]
    learners = [Learner(tables, rng, cfg.alpha, cfg.gamma, cfg.epsilon, cfg.rule, cfg.tie,
                        cfg.rewards, cfg.caution, cfg.average, cfg.min_visits)
                if mode == "self" or s == seat else None for s in range(3)]
    if mode == "greedy":
        other = greedy
    elif mode == "greedy_rulev1":
        # two greedy or two rulev1 opponents, even odds; rulev1 is rebuilt with a seed
        # from the run's generator, so a resumed run replays its random fallback exactly
        other = greedy if rng.random() < 0.5 else agent_controller(
            make_agent("rulev1", seed=int(rng.integers(2**32))))
    else:
        other = split_random_controller(rng)
    ctl = [learner_controller(lr, cfg.role_bug) if lr is not None else other for lr in learners]
    game = play_out(Game(deal, landlord=lord), ctl)
    for s, lr in enumerate(learners):
        if lr is not None:
            lr.finish(_side_won(game, s))


def _checkpoint(path: Path, tables: QTables, cfg: TrainConfig, done: int,
                rng: np.random.Generator, history: list[dict]) -> None:
    tables.meta.update({"config": asdict(cfg), "games_done": done})
    state = {"rng": rng.bit_generator.state, "history": history, "games_done": done,
             "config": asdict(cfg)}
    tables.save(path, {"train_state": np.array(json.dumps(state))})


def load_checkpoint(path: Union[str, Path]) -> tuple[QTables, dict]:
    """Tables and training state of a file written by `train` (`ModelFileError` if it has
    no training state)."""
    tables, data = load_file(Path(path))
    if "train_state" not in data:
        raise ModelFileError(f"{path}: a Q-table without training state; cannot resume from it")
    try:
        state = json.loads(str(data["train_state"]))
        state["config"] = TrainConfig(**state["config"])
    except (json.JSONDecodeError, TypeError, KeyError) as e:
        raise ModelFileError(f"{path}: bad training state ({e})") from None
    return tables, state


def train(config: TrainConfig, out: Union[str, Path, None] = None, resume: bool = False,
          checkpoint_every: int = 0, progress: bool = True,
          tables: Optional[QTables] = None) -> TrainResult:
    """Train (module docstring). ``out``: the file the table and the training state are
    saved to (every ``checkpoint_every`` games and at the end). ``resume=True`` continues
    the run saved in ``out`` up to ``config.games`` (its other settings must match)."""
    cfg = config
    cfg.check()
    rng = np.random.default_rng(cfg.seed)
    history: list[dict] = []
    done = 0
    if resume:
        if out is None or not Path(out).exists():
            raise ModelFileError(f"cannot resume: no checkpoint at {out}")
        tables, state = load_checkpoint(out)
        diff = cfg.same_run(state["config"])
        if diff:
            raise ModelFileError(f"{out} was trained with other settings ({', '.join(diff)}): "
                                 "cannot resume it with these")
        rng.bit_generator.state = state["rng"]
        history, done = state["history"], int(state["games_done"])
    elif tables is None:
        tables = QTables(cfg.q_init)
    tables.meta["config"] = asdict(cfg)
    greedy = agent_controller(GreedyAgent())
    eval_deals = generate_deals(cfg.eval_games, seed=10_000 + cfg.seed) if cfg.eval_every else []

    def do_eval(n: int) -> None:
        s = eval_summary(evaluate(tables, eval_deals, cfg.eval_opponent, cfg.seed, cfg.role_bug,
                                  cfg.tie))
        s.update({"games": n, **{f"coverage_{k}": v for k, v in tables.coverage().items()}})
        history.append(s)

    if cfg.eval_every and done == 0:
        do_eval(0)
    bar: Any = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=cfg.games, initial=done, desc="q-learning", unit="game")
    start, first = time.perf_counter(), done
    while done < cfg.games:
        _train_one(tables, cfg, rng, greedy)
        done += 1
        if bar is not None:
            bar.update(1)
        if cfg.eval_every and done % cfg.eval_every == 0:
            do_eval(done)
            if bar is not None:
                bar.set_postfix(wp=f"{history[-1]['wp_combined']:.3f}")
        if out is not None and checkpoint_every and done % checkpoint_every == 0:
            _checkpoint(Path(out), tables, cfg, done, rng, history)
    seconds = time.perf_counter() - start
    if bar is not None:
        bar.close()
    if out is not None:
        _checkpoint(Path(out), tables, cfg, done, rng, history)
    tables.meta.update({"config": asdict(cfg), "games_done": done})
    return TrainResult(tables, cfg, pd.DataFrame(history), done, seconds,
                       {"trained_now": done - first})


# -- command line ---------------------------------------------------------------------
@register_trainer("qlearning")
def main(argv: list[str]) -> int:
    """``ddzlab train qlearning``: train (or resume) a Q-table and save it."""
    p = argparse.ArgumentParser(prog="ddzlab train qlearning",
                                description="Train du-guai's tabular Q-learning player.")
    p.add_argument("--games", type=int, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True, help="table + checkpoint file (.npz)")
    p.add_argument("--resume", action="store_true", help="continue the run saved in --out")
    p.add_argument("--eval-every", type=int, default=0)
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--checkpoint-every", type=int, default=5000)
    p.add_argument("--opponents", default="self", choices=OPPONENTS)
    p.add_argument("--rule", default="standard", choices=RULES)
    p.add_argument("--tie", default="random", choices=TIES,
                   help="random: du-guai's tie-break; prior: ddzlab's preference order")
    p.add_argument("--rewards", default="seed", choices=REWARDS)
    p.add_argument("--min-visits", type=int, default=0,
                   help="leave the prior's action only for actions tried this often")
    p.add_argument("--average", action="store_true",
                   help="alpha = max(alpha, 1/visits): running means of the returns")
    p.add_argument("--caution", type=float, default=0.0,
                   help="act on Q - caution/sqrt(visits) (0: du-guai's plain Q)")
    p.add_argument("--q-init", type=float, default=0.0, help="initial Q (the seed: 0)")
    p.add_argument("--alpha", type=float, default=ALPHA)
    p.add_argument("--gamma", type=float, default=GAMMA)
    p.add_argument("--epsilon", type=float, default=EPSILON)
    p.add_argument("--no-progress", action="store_true")
    a = p.parse_args(argv)
    if a.games < 1:
        p.error(f"--games must be at least 1, not {a.games}: there is nothing to train")
    cfg = TrainConfig(games=a.games, seed=a.seed, alpha=a.alpha, gamma=a.gamma,
                      epsilon=a.epsilon, rule=a.rule, opponents=a.opponents, tie=a.tie,
                      q_init=a.q_init, rewards=a.rewards, caution=a.caution,
                      average=a.average, min_visits=a.min_visits,
                      eval_every=a.eval_every, eval_games=a.eval_games)
    try:
        res = train(cfg, a.out, resume=a.resume, checkpoint_every=a.checkpoint_every,
                    progress=not a.no_progress)
    except (ModelFileError, ValueError) as e:
        print(f"ddzlab train qlearning: error: {e}", file=sys.stderr)
        return 2
    cov = res.tables.coverage()
    print(f"trained {res.games_done} games ({res.games_per_second:.1f} games/s this run); "
          f"coverage lead {cov['lead']:.4f}, follow {cov['follow']:.4f}; saved {a.out}")
    if len(res.history):
        last = res.history.iloc[-1]
        print(f"last evaluation vs {cfg.eval_opponent}: WP {last.wp_combined:.3f} "
              f"(landlord {last.wp_landlord:.3f}, farmers {last.wp_farmers:.3f})")
    return 0


__all__ = ["seed_protocol", "protocol_summary", "evaluate", "eval_summary", "train",
           "TrainConfig", "TrainResult", "load_checkpoint", "svm_calls", "seed_deal",
           "play_out", "OPPONENTS", "main"]
