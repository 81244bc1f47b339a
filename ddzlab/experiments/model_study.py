"""Notebook 10's helpers: a DouZero-format model in ddzlab's experiments, from stored rows.

**Naming a model in a stored experiment.** The repository ships no weights: DouZero's three
networks are 18 MB (16 MB compressed) at any stage of training. A stored experiment names a
checkpoint of a training run of `ddzlab.env.dmc` by a spec that pins it,
``douzero:<folder>,frames=F,digest=sha256-...``: the folder under ``data/models/`` (found
there from any working directory, `ddzlab.env.douzero_agent.model_folder`), the run's file
at F frames, and the digest of its weights (`ddzlab.env.douzero_agent.weights_digest`), so a
run extended with other weights is refused rather than mixed with the stored games. `ModelRun`
holds the run's settings and each checkpoint's digest; `ModelRun.command` is the command that
trains the same files again (training in one process is reproducible from its seed, and the
digest says whether the files came out the same), `ModelRun.check` what is there.

**Tables.** `curve_table`: each checkpoint's WP against each opponent (both roles, the deal
the unit); `curve_gains`: the last checkpoint minus the first, paired by deal, Holm over the
opponents; `crossplay_matrix`: the cross-play table of the combined WP of every pair met in
stored rows (`ddzlab.experiments.protocols.cross_play`) as a matrix with intervals;
`sides_in_duplicate`: whether the duplicate run's two arena seatings are the arena's games of
the same deals (the two protocols share them); `find_models`: the DouZero-format folders
under ``data/models/``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional, Sequence, Union

import pandas as pd

from .. import stats as S
from ..config import MODELS_DIR
from ..env.dmc import DMCConfig
from .protocols import cross_play
from .runner import ExperimentError
from .tables import holm_flags, paired_wp, wp_row

#: DouZero's position files (`ddzlab.env.douzero_agent.POSITIONS`)
POSITION_FILES = ("landlord", "landlord_up", "landlord_down")


@dataclass(frozen=True)
class ModelRun:
    """A training run of `ddzlab.env.dmc` whose checkpoints stored experiments name.

    ``folder``: under ``data/models/`` (or a path); ``seed``, ``unroll``, ``batch``,
    ``objective``, ``epsilon``: the run's settings (`DMCConfig`); ``digests``: frames → the
    `weights_digest` of that checkpoint (0: the initial networks drawn from the training seed)."""
    folder: str
    seed: int
    unroll: int
    batch: int
    digests: Mapping[int, str] = field(default_factory=dict)
    objective: str = "adp"
    epsilon: float = 0.01

    def __post_init__(self) -> None:
        if not self.digests:
            raise ExperimentError(f"model run {self.folder!r}: no checkpoint listed")
        bad = [f for f in self.digests if isinstance(f, bool) or not isinstance(f, int) or f < 0]
        if bad:
            raise ExperimentError(f"model run {self.folder!r}: checkpoints are frame counts >= 0, got {bad}")
        self.config()

    def config(self) -> DMCConfig:
        """The run's training settings."""
        return DMCConfig(seed=self.seed, unroll=self.unroll, batch=self.batch, objective=self.objective,
                         epsilon=self.epsilon).check()

    @property
    def checkpoints(self) -> tuple[int, ...]:
        """The listed frame counts, in order."""
        return tuple(sorted(self.digests))

    @property
    def final(self) -> int:
        """The last checkpoint's frames."""
        return self.checkpoints[-1]

    def label(self, frames: int) -> str:
        """The store label of a checkpoint: ``dmc-<frames>``."""
        self._known(frames)
        return f"dmc-{frames}"

    def frames_of(self, label: str) -> int:
        """The frames of a `label`."""
        head, _, tail = label.partition("-")
        if head != "dmc" or not tail.isdigit():
            raise ExperimentError(f"{label!r} is not a checkpoint label (dmc-<frames>)")
        return self._known(int(tail))

    def spec(self, frames: int) -> str:
        """The spec that plays the checkpoint at ``frames`` and only it."""
        return f"douzero:{self.folder},frames={self._known(frames)},digest={self.digests[frames]}"

    def specs(self, frames: Optional[Sequence[int]] = None) -> dict[str, str]:
        """label → spec of the checkpoints ``frames`` (default: every one)."""
        return {self.label(f): self.spec(f) for f in (self.checkpoints if frames is None else frames)}

    def command(self) -> str:
        """The command (from the repository's root) that trains the run's files again."""
        out = self.folder if Path(self.folder).is_absolute() else f"data/models/{self.folder}"
        d = DMCConfig()
        extra = "".join(f" --{k} {v}" for k, v in (("objective", self.objective), ("epsilon", self.epsilon))
                        if v != getattr(d, k))
        return (f"ddzlab train dmc {out} --checkpoints {','.join(str(f) for f in self.checkpoints)} "
                f"--seed {self.seed} --unroll {self.unroll} --batch {self.batch}{extra}")

    def check(self) -> pd.DataFrame:
        """One row per checkpoint: its files present, the digest found and whether it is the
        listed one (needs torch when the files are there)."""
        from ..env.douzero_agent import CheckpointError, folder_digest
        rows = []
        for f in self.checkpoints:
            try:
                found: Optional[str] = folder_digest(self.folder, f)
            except CheckpointError:
                found = None
            rows.append({"frames": f, "present": found is not None, "digest": found,
                         "as listed": found == self.digests[f]})
        return pd.DataFrame(rows)

    def _known(self, frames: int) -> int:
        if frames not in self.digests:
            raise ExperimentError(f"model run {self.folder!r} has no checkpoint at {frames!r} frames; "
                                  f"it lists {list(self.checkpoints)}")
        return frames


def curve_table(games: pd.DataFrame, run: ModelRun, opponents: Sequence[str],
                frames: Optional[Sequence[int]] = None) -> pd.DataFrame:
    """Each checkpoint's WP against each opponent: one row per (frames, opponent) with
    `wp_row`'s WP and its 95% t interval over deals (clipped to 0..1), and the share of games
    won as landlord and as farmers."""
    rows = []
    for f in (run.checkpoints if frames is None else frames):
        label = run.label(f)
        for opp in opponents:
            part = games[(games["config"] == label) & (games["opponent"] == opp)]
            if part.empty:
                raise S.StatsError(f"no stored games of {label} against {opp}")
            role = part.groupby("role")["won"].mean()
            wp = wp_row(games, label, opp)
            wp.update(WP_lo=max(0.0, wp["WP_lo"]), WP_hi=min(1.0, wp["WP_hi"]))
            rows.append({"frames": f, "opponent": opp, **wp,
                         "landlord WP": float(role.get("landlord", float("nan"))),
                         "farmers WP": float(role.get("farmers", float("nan")))})
    return pd.DataFrame(rows)


def curve_gains(games: pd.DataFrame, run: ModelRun, opponents: Sequence[str], first: Optional[int] = None,
                last: Optional[int] = None, alpha: float = 0.05) -> pd.DataFrame:
    """The checkpoint at ``last`` (default the final one) minus the one at ``first`` (default
    the first), paired by deal against each opponent; Holm over the opponents."""
    first = run.checkpoints[0] if first is None else first
    last = run.final if last is None else last
    rows = [{"opponent": opp, "first": first, "last": last,
             **paired_wp(games, run.label(last), run.label(first), opp)} for opp in opponents]
    return holm_flags(pd.DataFrame(rows), alpha)


def crossplay_matrix(games: pd.DataFrame, agents: Sequence[str], alpha: float = 0.05) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the long table, the matrix): `cross_play`'s combined rows of every ordered pair of
    ``agents`` met in ``games`` (A's WP against B, both role assignments on the same deals,
    the interval paired by deal), and the same as a matrix of text ``WP [lo, hi]`` with A the
    row and B the column (empty where the two never met)."""
    long = cross_play(games, agents, alpha)
    long = long[long["role"] == "combined"].drop(columns="role").reset_index(drop=True)
    text = pd.DataFrame("", index=pd.Index(list(agents), name="A (row) against B"), columns=list(agents))
    for r in long.itertuples():
        text.loc[r.A, r.B] = f"{r.WP:.3f} [{r.WP_lo:.3f}, {r.WP_hi:.3f}]"
    for a in agents:
        text.loc[a, a] = "—"
    return long, text


def sides_in_duplicate(sides: pd.DataFrame, duplicate: pd.DataFrame, a: str, b: str) -> dict:
    """Whether the duplicate run's seatings ``ABB`` and ``BAA`` are the arena's two games of
    ``a`` against ``b`` on the same deals (same seeds: same result and number of moves).
    Returns the games compared and how many agree."""
    dup = duplicate[(duplicate["config"] == a) & (duplicate["opponent"] == b) & duplicate["seats"].isin(["ABB", "BAA"])]
    side = sides[(sides["config"] == a) & (sides["opponent"] == b)]
    left = pd.DataFrame({"deal": dup["deal"].to_numpy(),
                         "role": ["landlord" if s == "ABB" else "farmers" for s in dup["seats"]],
                         "won": [int(lw) if s == "ABB" else 1 - int(lw) for s, lw in zip(dup["seats"], dup["landlord_won"])],
                         "moves": dup["moves"].to_numpy()})
    both = left.merge(side[["deal", "role", "won", "moves"]], on=["deal", "role"], suffixes=("_dup", "_sides"))
    agree = (both["won_dup"] == both["won_sides"]) & (both["moves_dup"] == both["moves_sides"])
    return {"games": int(len(both)), "agree": int(agree.sum())}


def find_models(root: Union[str, Path, None] = None) -> list[str]:
    """The folders under ``root`` (default ``data/models/``) that hold DouZero's three
    position files (``<position>.ckpt``), by name: each plays as ``douzero:<name>``."""
    base = Path(root) if root is not None else MODELS_DIR
    if not base.is_dir():
        return []
    return sorted(p.name for p in base.iterdir()
                  if p.is_dir() and all((p / f"{q}.ckpt").is_file() for q in POSITION_FILES))


__all__ = ["ModelRun", "curve_table", "curve_gains", "crossplay_matrix", "sides_in_duplicate", "find_models"]
