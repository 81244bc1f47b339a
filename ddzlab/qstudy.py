"""The checkpoint study of notebook 04: the ddzlab Q-learning variant trained against three
kinds of opponent, with tables saved along the way.

A *run* is one (training opponent, training seed); a *checkpoint* is its table after
`CHECKPOINTS` training games (0 is the untrained prior, the agent ``qlearning_prior``, and
needs no file). `train_study` trains every run to every checkpoint, **stage by stage**
(every run to 1,000 games, then every run to 2,500, ...), so a study stopped early holds
the most informative cells. It is resumable at any point: a run continues from its last
saved state (every ``checkpoint_every`` games) and ends with exactly the table of an
uninterrupted run (`ddzlab.qtraining.train`'s resume); a checkpoint already on disk is
never trained again.

Training opponents (`TRAIN_OPPONENTS`): ``split_random`` (du-guai's random players),
``self`` (self-play, shared tables) and ``greedy_rulev1`` (per game, two `greedy` or two
`rulev1` opponents), to tell overfitting the training opponent from the limits of the
abstraction.

Files: ``<root>/<opponent>-s<seed>-<games>.npz`` (`checkpoint_path`; ``root`` defaults to
`ddzlab.agents.qlearning.CHECKPOINT_DIR`), the format `QTables.save` writes (compressed, no
pickle). The agent spec of a checkpoint is ``"qlearning:checkpoint=<name>"``
(`checkpoint_spec`), the same on every machine.

`protocol_study` tests du-guai's claim (54.2% after 2,000 training games against 51.7% for
a random player, docs/definitions.md#q-learning-player) in its own protocol: several training runs of du-guai's
setup, each on its own protocol seed, paired game by game with the random player and the
untrained prior on the same deals, seats and bids.

``ddzlab train qstudy [--seeds 0-4] [--upto 100000] [--opponents ...] [--root DIR]
[--work DIR]``; ``ddzlab train qstudy --protocol RUNS [--protocol-games N]``.
"""
from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import shutil
import time
import zipfile
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence, TypedDict, Union

import numpy as np
import pandas as pd

from .agents.base import register_trainer
from .agents.qlearning import CHECKPOINT_DIR, QTables, SparseTables
from .config import CACHE_DIR, DATA_DIR
from .errors import DdzError, ModelFileError
from .qtraining import TrainConfig, seed_protocol, train

#: training games of the study's tables (0, the prior, is `PRIOR_SPEC`)
CHECKPOINTS = (1_000, 2_500, 10_000, 40_000, 100_000)
TRAIN_OPPONENTS = ("split_random", "self", "greedy_rulev1")
SEEDS = (0, 1, 2, 3, 4)
PRIOR_SPEC = "qlearning_prior"
WORK_DIR = CACHE_DIR / "qstudy"


class Variant(TypedDict, total=False):
    """Settings of `TrainConfig` a study fixes (its keyword arguments, with their types)."""
    tie: str
    q_init: float
    rewards: str
    rule: str
    gamma: float
    alpha: float
    average: bool
    caution: float
    min_visits: int
    epsilon: float
    role_bug: bool


#: the ddzlab variant (notebook 04; `ddzlab.agents.qlearning.TRAIN_COMMAND`'s settings)
VARIANT = Variant(tie="prior", q_init=-40.0, rewards="outcome", rule="mc", gamma=1.0, alpha=0.01,
                  average=True, caution=40.0, min_visits=30, epsilon=0.05)


class QStudyError(DdzError):
    """A study asked for nothing or for something impossible: no checkpoint up to ``upto``,
    training games <= 0, protocol runs of another size than the stored ones."""


def study_config(opponent: str, seed: int, games: int) -> TrainConfig:
    """The training settings of one run of the study, up to ``games``."""
    return TrainConfig(games=games, seed=seed, opponents=opponent, **VARIANT)


def checkpoint_name(opponent: str, seed: int, games: int) -> str:
    """A checkpoint's name (its file stem, and its label in the experiments)."""
    return f"{opponent}-s{seed}-{games}"


def checkpoint_path(opponent: str, seed: int, games: int,
                    root: Union[str, Path, None] = None) -> Path:
    """The file of one checkpoint."""
    return Path(root or CHECKPOINT_DIR) / f"{checkpoint_name(opponent, seed, games)}.npz"


def checkpoint_spec(opponent: str, seed: int, games: int,
                    root: Union[str, Path, None] = None) -> str:
    """The agent spec of a checkpoint: ``qlearning_prior`` for 0 games, else
    ``qlearning:checkpoint=NAME`` (the same on every machine), or with another ``root``
    ``qlearning:path=FILE``."""
    if games == 0:
        return PRIOR_SPEC
    if root is None:
        return f"qlearning:checkpoint={checkpoint_name(opponent, seed, games)}"
    return f"qlearning:path={checkpoint_path(opponent, seed, games, root).as_posix()}"


def plan(opponents: Sequence[str] = TRAIN_OPPONENTS, seeds: Iterable[int] = SEEDS,
         upto: int = CHECKPOINTS[-1],
         checkpoints: Sequence[int] = CHECKPOINTS) -> list[tuple[int, str, int]]:
    """The (games, opponent, seed) cells in the order they are trained: stage by stage."""
    seeds = list(seeds)
    return [(g, o, s) for g in checkpoints if g <= upto for o in opponents for s in seeds]


def train_study(opponents: Sequence[str] = TRAIN_OPPONENTS, seeds: Iterable[int] = SEEDS,
                upto: int = CHECKPOINTS[-1], root: Union[str, Path, None] = None,
                work: Union[str, Path, None] = None, checkpoint_every: int = 500,
                checkpoints: Sequence[int] = CHECKPOINTS, progress: bool = True,
                log: Optional[Callable[[str], None]] = print) -> list[Path]:
    """Train the study's runs to every checkpoint up to ``upto`` (module docstring).
    ``root``: where checkpoints go; ``work``: the runs' in-progress state files (default
    `WORK_DIR`, git-ignored). Returns the checkpoint files, old and new, in plan order."""
    if any(g <= 0 for g in checkpoints):
        raise QStudyError(f"checkpoints {list(checkpoints)}: training games must be > 0 "
                          "(0 games is the prior, which needs no table)")
    cells = plan(opponents, seeds, upto, checkpoints)
    if not cells:
        raise QStudyError(f"nothing to train: no checkpoint of {list(checkpoints)} is <= upto={upto}, "
                          "or no seed or opponent was given")
    root = Path(root or CHECKPOINT_DIR)
    work = Path(work or WORK_DIR)
    out = []
    for games, opp, seed in cells:
        path = checkpoint_path(opp, seed, games, root)
        out.append(path)
        if path.exists():
            continue
        state = work / f"{opp}-s{seed}.npz"
        earlier = max((g for g in checkpoints if g < games
                       and checkpoint_path(opp, seed, g, root).exists()), default=0)
        done = _games_done(state)
        resume = done is not None and earlier <= done <= games
        if not resume and earlier:
            # no usable state (missing, or not between the last checkpoint and this one):
            # continue from the last checkpoint, which holds the same training state
            work.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(checkpoint_path(opp, seed, earlier, root), state)
            resume = True
        t0 = time.perf_counter()
        train(study_config(opp, seed, games), state, resume=resume,
              checkpoint_every=checkpoint_every, progress=progress)
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(state, path)
        checkpoint_summary(root)
        if log is not None:
            log(f"{path.name}: {time.perf_counter() - t0:.0f} s")
    return out


SUMMARY_FILE = "checkpoints.csv"


def checkpoint_summary(root: Union[str, Path, None] = None, write: bool = True) -> pd.DataFrame:
    """One row per checkpoint file in ``root``: training opponent, seed, games, states of
    each table visited at least once, and the file's size; written to
    ``<root>/checkpoints.csv`` (``write``) so the notebook has it without the tables."""
    from .agents.qlearning import N_FOLLOW_STATES, N_LEAD_STATES, load_tables
    root = Path(root or CHECKPOINT_DIR)
    rows = []
    for path in sorted(root.glob("*-s*-*.npz")):
        opp, seed, games = parse_label(path.stem)
        cov = load_tables(path).coverage()
        rows.append({"train_opponent": opp, "seed": seed, "games": games,
                     "lead_states": round(cov["lead"] * N_LEAD_STATES),
                     "follow_states": round(cov["follow"] * N_FOLLOW_STATES),
                     "bytes": path.stat().st_size})
    out = pd.DataFrame(rows, columns=["train_opponent", "seed", "games", "lead_states",
                                      "follow_states", "bytes"])
    out = out.sort_values(["games", "train_opponent", "seed"], kind="stable").reset_index(drop=True)
    if write and len(out):
        out.to_csv(root / SUMMARY_FILE, index=False)
    return out


# -- du-guai's claim in its own protocol ------------------------------------------------
#: du-guai's setup as it ran (docs/definitions.md#q-learning-player): its update rule and role bug, self-play, its values
SEED_VARIANT = Variant(rule="seed", role_bug=True)
#: du-guai: 54.2% after 2,000 training games, against 51.7% for a random player
CLAIM_TRAINING = 2_000
PROTOCOL_PLAYERS = ("seed_2000", "split_random", PRIOR_SPEC)
PROTOCOL_COLUMNS = ["run", "protocol_seed", "game", "seat", "role", "player", "won", "redeals"]
PROTOCOL_FILE = DATA_DIR / "experiments" / "04_protocol" / "games.csv.gz"


def protocol_seed(run: int) -> int:
    """The protocol seed (deals, seats, bids) of run ``run``: each run meets its own games."""
    return 1_000 + run


def protocol_run(run: int, games: int, training: int = CLAIM_TRAINING) -> pd.DataFrame:
    """One run of the protocol study: du-guai's setup trained ``training`` games with
    training seed ``run``, then it, du-guai's random player and the untrained prior each
    play the same ``games`` protocol games (`protocol_seed`): rows `PROTOCOL_COLUMNS`."""
    tables = train(TrainConfig(games=training, seed=run, **SEED_VARIANT),
                   progress=False).tables
    ps = protocol_seed(run)
    parts = []
    # the prior as an empty table with the prior's tie-break: what `qlearning_prior` plays
    prior = SparseTables.empty(VARIANT["q_init"], {"config": {"tie": "prior"}})
    agents: tuple[Union[QTables, SparseTables, str], ...] = (tables, "split_random", prior)
    for player, agent in zip(PROTOCOL_PLAYERS, agents):
        df = seed_protocol(agent, games=games, seed=ps)
        parts.append(df.assign(run=run, protocol_seed=ps, player=player))
    out = pd.concat(parts, ignore_index=True)
    out["won"] = out["won"].astype(int)
    return out[PROTOCOL_COLUMNS]


def protocol_study(runs: int = 10, games: int = 500, path: Union[str, Path, None] = None,
                   progress: bool = True, training: int = CLAIM_TRAINING) -> pd.DataFrame:
    """du-guai's claim at a size that can test it: ``runs`` runs (`protocol_run`), each on
    its own protocol seed, ``games`` paired games each. Resumable by run: the file
    (default `PROTOCOL_FILE`, gzip CSV) is rewritten atomically after every run, and runs
    already in it are not played again; a file whose runs have another number of games
    raises `QStudyError` (they would be mixed in). Returns every stored row."""
    path = Path(path or PROTOCOL_FILE)
    done = read_protocol(path)
    if len(done):
        sizes = done.groupby(["run", "player"]).size()
        if (sizes != games).any():              # a run of another size would be mixed in
            raise QStudyError(f"{path} holds runs of {sorted(set(sizes))} games per player, this call "
                              f"asks for {games}: use the stored size or another file")
    have = set(done["run"]) if len(done) else set()
    todo = [r for r in range(runs) if r not in have]
    bar: Any = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=runs, initial=runs - len(todo), desc="protocol runs", unit="run")
    for r in todo:
        new = protocol_run(r, games, training)
        done = pd.concat([done, new], ignore_index=True) if len(done) else new
        done = done.sort_values(["run", "player", "game"], kind="stable").reset_index(drop=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(gzip.compress(done.to_csv(index=False).encode(), mtime=0))
        os.replace(tmp, path)
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return done


def read_protocol(path: Union[str, Path, None] = None) -> pd.DataFrame:
    """The stored rows of the protocol study (empty if none); a file with other columns
    raises `ModelFileError`."""
    path = Path(path or PROTOCOL_FILE)
    if not path.exists():
        return pd.DataFrame({c: pd.Series(dtype=object if c in ("role", "player") else "int64")
                             for c in PROTOCOL_COLUMNS})
    df = pd.read_csv(path)
    if list(df.columns) != PROTOCOL_COLUMNS:
        raise ModelFileError(f"{path}: columns {list(df.columns)}, expected {PROTOCOL_COLUMNS}")
    return df


# -- the evaluation experiments and their analysis --------------------------------------
#: the evaluation opponents of the checkpoints (each deal played twice, sides swapped)
EVAL_OPPONENTS = ("greedy", "rulev1", "weights", "split_random")
PRIOR_LABEL = "prior"
#: the effect that matters (0.03 WP, `ddzlab.stats.EFFECT_WP`) and, before the study, the SD
#: of per-deal WP differences between a 10,000-game table and the prior against greedy
#: (a pilot's −0.078 [−0.093, −0.062] over 1,000 deals gives SD ≈ 0.25)
PILOT_SD = 0.25


def experiment_name(games: int) -> str:
    """The stored experiment of one checkpoint stage: every run's table after ``games``
    training games and the prior, against `EVAL_OPPONENTS`."""
    return f"04_qlearning_{games}"


def stage_configs(games: int, opponents: Sequence[str] = TRAIN_OPPONENTS,
                  seeds: Iterable[int] = SEEDS) -> dict[str, str]:
    """Label → agent spec of one stage's experiment: the prior and every run's table."""
    out = {PRIOR_LABEL: PRIOR_SPEC}
    for opp in opponents:
        for seed in seeds:
            out[checkpoint_name(opp, seed, games)] = checkpoint_spec(opp, seed, games)
    return out


def parse_label(label: str) -> tuple[Optional[str], Optional[int], int]:
    """(training opponent, seed, training games) of a config label; the prior is
    (None, None, 0)."""
    if label == PRIOR_LABEL:
        return None, None, 0
    opp, seed, games = label.rsplit("-", 2)
    return opp, int(seed.lstrip("s")), int(games)


def _per_deal_wp(games: pd.DataFrame) -> pd.DataFrame:
    """WP per (config, opponent, deal): the share of the deal's two games won."""
    return games.groupby(["config", "opponent", "deal"])["won"].mean().unstack("deal")


def checkpoint_deltas(games: pd.DataFrame, prior: str = PRIOR_LABEL, alpha: float = 0.05,
                      power: float = 0.8) -> pd.DataFrame:
    """Paired ΔWP (checkpoint − prior) per training setup and evaluation opponent.

    For a setup (training opponent, training games) with runs s = 1..S (training seeds) and
    deals d = 1..D played by every run and the prior against one opponent, Δ[s, d] is run
    s's WP on deal d less the prior's. The estimate is the mean of Δ.

    Two analyses of the same cell, each with its own unit:

    * **the run** (the replicate of the training question: does training this way beat the
      prior?): each run's mean Δ over the deals is one value; ``lo``/``hi``, ``p`` and ``se``
      are the one-sample t interval and test over the S run means (S − 1 degrees of
      freedom); ``mde`` is the difference that test detects with ``power`` at the SD of the
      run means (``sd_run``); ``p_holm`` is Holm's adjustment over every row (the family is
      the whole grid). The run means share the prior's games, so their spread holds the
      training variance, not the noise of those shared games: the second analysis does.
    * **the deal** (the game-noise question: does it hold over deals?): per deal, Δ averaged
      over the runs; ``lo_deal``/``hi_deal``, ``p_deal``, ``p_deal_holm`` and ``mde_deal`` are
      the paired t over the D deals, which holds the game noise of the table and the prior.

    With one run only the deal analysis is possible: the run columns then repeat it
    (``runs`` says so). ``sd_deal``: the SD over deals of one run's Δ, averaged over the runs,
    the quantity `PILOT_SD` assumed when the study was planned.

    Columns: train_opponent, games, opponent, runs, deals, delta, lo, hi, se, p, mde,
    p_holm, sd_run, lo_deal, hi_deal, p_deal, mde_deal, p_deal_holm, sd_deal, wp (the
    checkpoints' mean WP), wp_prior.
    """
    from scipy.stats import t as tdist

    from .stats import holm, mde, t_interval

    def t_test(x: np.ndarray) -> tuple[float, float, float, float, float, float]:
        """(mean, lo, hi, se, p, mde) of a one-sample t over ``x``."""
        m, lo, hi = t_interval(x, alpha)
        sd = float(x.std(ddof=1))
        se = sd / math.sqrt(len(x))
        p = float(2 * tdist.sf(abs(m) / se, len(x) - 1)) if se > 0 else float(m == 0)
        return m, lo, hi, se, p, mde(sd, len(x), alpha, power)

    # a table's games are the same in every stage experiment that lists it (the prior)
    games = games.drop_duplicates(["config", "opponent", "deal", "role"])
    wp = _per_deal_wp(games)
    rows = []
    labels = sorted(set(games["config"]) - {prior})
    setups: dict[tuple[Optional[str], int], list[str]] = {}     # (the prior's opponent is None)
    for label in labels:
        opp, _, g = parse_label(label)
        setups.setdefault((opp, g), []).append(label)
    for (train_opp, g), runs in sorted(setups.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        for opp in sorted(set(games["opponent"])):
            keys = [(r, opp) for r in runs if (r, opp) in wp.index]
            if (prior, opp) not in wp.index or not keys:
                continue
            base = wp.loc[(prior, opp)]
            delta = (wp.loc[keys].sub(base, axis=1)).dropna(axis=1)
            S, D = delta.shape
            if D < 2:
                continue
            x = delta.to_numpy(float)
            by_run, by_deal = x.mean(axis=1), x.mean(axis=0)
            m, lo_d, hi_d, se_d, p_d, mde_d = t_test(by_deal)
            if S >= 2:
                _, lo, hi, se, p, mde_r = t_test(by_run)
                sd_run = float(by_run.std(ddof=1))
            else:
                lo, hi, se, p, mde_r, sd_run = lo_d, hi_d, se_d, p_d, mde_d, math.nan
            rows.append({"train_opponent": train_opp, "games": g, "opponent": opp, "runs": S,
                         "deals": D, "delta": m, "lo": lo, "hi": hi, "se": se, "p": p, "mde": mde_r,
                         "sd_run": sd_run, "lo_deal": lo_d, "hi_deal": hi_d, "p_deal": p_d,
                         "mde_deal": mde_d,
                         "sd_deal": float(x.std(axis=1, ddof=1).mean()),
                         "wp": float(wp.loc[keys, delta.columns].to_numpy().mean()),
                         "wp_prior": float(base[delta.columns].mean())})
    out = pd.DataFrame(rows)
    if len(out):
        out["p_holm"] = holm(out["p"].to_numpy())
        out["p_deal_holm"] = holm(out["p_deal"].to_numpy())
    return out


def delta_text(row: Any) -> str:
    """One `checkpoint_deltas` row as the notebook's prose cites it: setup, training games,
    opponent, ΔWP with its 95% t interval over the runs, and the runs and deals behind it."""
    return (f"{row.train_opponent} {row.games:,} vs {row.opponent}: {row.delta:+.3f} [{row.lo:+.3f}, {row.hi:+.3f}] "
            f"({row.runs} runs, {row.deals:,} deals)")


def protocol_runs(df: pd.DataFrame) -> pd.DataFrame:
    """Per run of the protocol study: each player's total win rate on its games and the
    paired differences (trained − random, prior − random, trained − prior)."""
    rate = df.pivot_table(index="run", columns="player", values="won", aggfunc="mean")
    out = pd.DataFrame({"protocol_seed": df.groupby("run")["protocol_seed"].first(),
                        "games": df[df.player == PROTOCOL_PLAYERS[0]].groupby("run").size()})
    for p in PROTOCOL_PLAYERS:
        out[p] = rate[p]
    return out


PROTOCOL_CONTRASTS = (("seed_2000", "split_random"), (PRIOR_SPEC, "split_random"),
                      ("seed_2000", PRIOR_SPEC))


def protocol_contrasts(df: pd.DataFrame, alpha: float = 0.05, power: float = 0.8,
                       effect: float = 0.025) -> pd.DataFrame:
    """du-guai's claim and its neighbours, paired game by game within each run (the same
    deals, seats and bids): for each contrast a − b, the mean over runs of the runs' mean
    differences with a t interval over the runs — every run has its own training seed and
    its own protocol seed, so their spread holds run variance and game variance both.
    ``mde``: what that design detects with ``power``; ``games_needed``: paired games (at
    the per-game SD seen) a single run would need to detect ``effect``.
    Also the rate of each player with its t interval over runs (rows ``rate: name``)."""
    from scipy.stats import t as tdist

    from .stats import mde, n_needed, t_interval
    wide = df.pivot_table(index=["run", "game"], columns="player", values="won")
    rows = []
    runs = sorted(df["run"].unique())
    for a, b in PROTOCOL_CONTRASTS:
        d = (wide[a] - wide[b]).dropna()
        by_run = d.groupby(level="run").mean().to_numpy(float)
        m, lo, hi = t_interval(by_run, alpha)
        se = float(by_run.std(ddof=1)) / math.sqrt(len(by_run))
        p = float(2 * tdist.sf(abs(m) / se, len(by_run) - 1)) if se > 0 else float(m == 0)
        sd_game = float(d.std(ddof=1))
        rows.append({"contrast": f"{a} − {b}", "estimate": m, "lo": lo, "hi": hi, "p": p,
                     "runs": len(runs), "paired_games": len(d),
                     "mde": mde(se * math.sqrt(len(by_run)), len(by_run), alpha, power),
                     "sd_game": sd_game, "games_needed": n_needed(sd_game, effect, alpha, power)})
    for player in PROTOCOL_PLAYERS:
        by_run = df[df.player == player].groupby("run")["won"].mean().to_numpy(float)
        m, lo, hi = t_interval(by_run, alpha)
        rows.append({"contrast": f"rate: {player}", "estimate": m, "lo": lo, "hi": hi,
                     "runs": len(by_run), "paired_games": int((df.player == player).sum()),
                     "min": float(by_run.min()), "max": float(by_run.max())})
    return pd.DataFrame(rows).set_index("contrast")


def _games_done(state: Path) -> Optional[int]:
    """Games a run's state file has trained (None: no file, or not a training state)."""
    if not state.exists():
        return None
    try:
        with np.load(state, allow_pickle=False) as z:
            return int(json.loads(str(z["train_state"]))["games_done"])
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError):
        return None


def _seeds(text: str) -> list[int]:
    """argparse type of ``--seeds``: a range ``0-4`` (both ends included) or a list ``0,2``
    of seeds >= 0; anything else (``4-0``, ``x``) is refused, naming what was expected,
    rather than read as no seeds at all."""
    try:
        if "-" in text:
            lo, hi = text.split("-", 1)
            seeds = list(range(int(lo), int(hi) + 1))
        else:
            seeds = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        seeds = []
    if not seeds or min(seeds) < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give training seeds >= 0 as a range such as "
                                         "0-4 or a list such as 0,2")
    return seeds


def _checkpoint_list(text: str) -> list[int]:
    """argparse type of ``--checkpoints``: training games > 0, comma-separated, sorted."""
    try:
        games = sorted({int(g) for g in text.split(",") if g.strip()})
    except ValueError:
        games = []
    if not games or games[0] <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give training games > 0, comma-separated, "
                                         "e.g. 1000,2500")
    return games


def _at_least(least: int) -> Callable[[str], int]:
    """argparse type: a whole number >= ``least``, refused with a message that says so."""
    def convert(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            n = least - 1
        if n < least:
            raise argparse.ArgumentTypeError(f"{text!r}: give a whole number >= {least}")
        return n
    return convert


@register_trainer("qstudy")
def main(argv: list[str]) -> int:
    """``ddzlab train qstudy``: the checkpoints of notebook 04's study (resumable)."""
    p = argparse.ArgumentParser(prog="ddzlab train qstudy",
                                description="Train notebook 04's Q-learning checkpoints, "
                                "stage by stage (resumable).")
    p.add_argument("--seeds", type=_seeds, default=list(SEEDS), help="training seeds, e.g. 0-4 or 0,2")
    p.add_argument("--upto", type=_at_least(1), default=CHECKPOINTS[-1],
                   help="train up to this checkpoint (games)")
    p.add_argument("--opponents", nargs="+", default=list(TRAIN_OPPONENTS),
                   choices=TRAIN_OPPONENTS)
    p.add_argument("--root", default=None, help=f"checkpoint folder (default {CHECKPOINT_DIR})")
    p.add_argument("--work", default=None,
                   help=f"folder of the runs' in-progress states (default {WORK_DIR})")
    p.add_argument("--checkpoints", type=_checkpoint_list, default=list(CHECKPOINTS),
                   help="training games of the checkpoints, comma-separated")
    p.add_argument("--checkpoint-every", type=_at_least(1), default=500,
                   help="save the run's state every this many games (resume point)")
    p.add_argument("--protocol", type=_at_least(0), default=0, metavar="RUNS",
                   help="instead: du-guai's claim in its protocol, RUNS runs (protocol_study)")
    p.add_argument("--protocol-games", type=_at_least(1), default=500,
                   help="protocol games per player and run")
    p.add_argument("--summary", action="store_true",
                   help="instead: write the checkpoints' coverage and sizes (checkpoints.csv)")
    p.add_argument("--no-progress", action="store_true")
    a = p.parse_args(argv)
    if a.summary:
        df = checkpoint_summary(a.root)
        print(f"{len(df)} checkpoints summarised in {Path(a.root or CHECKPOINT_DIR) / SUMMARY_FILE}")
        return 0
    if a.protocol:
        df = protocol_study(a.protocol, a.protocol_games, progress=not a.no_progress)
        print(f"{df['run'].nunique()} protocol runs in {PROTOCOL_FILE}")
        return 0
    try:
        files = train_study(a.opponents, a.seeds, a.upto, a.root, a.work,
                            checkpoint_every=a.checkpoint_every, checkpoints=a.checkpoints,
                            progress=not a.no_progress)
    except ValueError as e:  # QStudyError (nothing to train), ModelFileError (a foreign state file)
        print(f"error: {e}")
        return 2
    print(f"{len(files)} checkpoints in {Path(files[0]).parent}")
    return 0


__all__ = ["CHECKPOINTS", "TRAIN_OPPONENTS", "SEEDS", "PRIOR_SPEC", "VARIANT", "WORK_DIR", "QStudyError",
           "study_config", "checkpoint_name", "checkpoint_path", "checkpoint_spec", "plan", "train_study",
           "checkpoint_summary", "protocol_seed", "protocol_run", "protocol_study", "read_protocol",
           "EVAL_OPPONENTS", "PILOT_SD", "experiment_name", "stage_configs", "parse_label",
           "checkpoint_deltas", "delta_text", "protocol_runs", "protocol_contrasts", "main"]
