"""The compiled search core (numba): worlds, rollouts, card guessing and the MCTS loops.

A search spends its time in one loop: list the legal moves, choose one, play it, until the
game ends; then again. In Python each step costs microseconds of interpreter work; here the
whole loop is compiled, so the MCTS agents (`ddzlab.agents.mcts`, ``backend="numba"``, the
default when numba imports) run their iterations without returning to Python.

* ``state``: a world as an ``int64`` array; the legal moves (`ddzlab.moves.compiled`), play,
  scores;
* ``power``: hand power (the best-split recursion of `ddzlab.analysis.power`), memoised;
* ``weights``: the `weights` agent's play (`ddzlab.agents.weights.WeightsAgent`);
* ``draw``: the random rollout's step, one uniformly random legal move counted and picked
  off the hand's slot masks instead of listed (the same draw, the same move);
* ``policies``: greedy Q(S, a) and its choice, random and halfsolo draws, the weights play,
  a whole rollout, the split filter;
* ``sample``: dealing worlds: the uniform and bomb guessers, the noisy oracle, candidate pools;
* ``tree``: the UCT and ISMCTS iteration loops;
* ``endgame``: the exact open-hand endgame solver (`ddzlab.analysis.endgame` compiled);
* ``likelihood``: the policy guesser's likelihood (the greedy agent replayed on each candidate
  deal) and the MCMC guesser that samples its posterior.

Rule sets: standard, mini, homework and wildcard (`ddzlab.moves.compiled.supports`); the
exact endgame solver refuses wildcard. Everything here is checked against its Python reference by
tests/search/test_compiled.py, at full size by tests/compiled_check.py.

The compiled code is cached on disk by numba (first use compiles for ~20-40 s, later
processes load it in about a second): beside the sources in ``__pycache__``, or, when the
package directory is read-only, in numba's user-wide cache directory (``NUMBA_CACHE_DIR``
overrides both). Cached kernels of the core are dropped when any of its sources changed
(`_drop_stale_cache`), wherever numba keeps them.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent
#: the source files of the compiled core: a kernel's cached code includes the kernels it
#: calls and the layouts' offsets (`ddzlab.kernels`), in other files too, which numba's cache
#: does not track
SOURCES = [_ROOT / "kernels.py", _ROOT / "moves" / "compiled.py",
           *(_ROOT / "search" / f"{m}.py" for m in ("state", "draw", "power", "weights", "policies", "sample",
                                                    "likelihood", "tree", "endgame"))]


def cache_folders(source: Path) -> list[Path]:
    """Where numba keeps the cached kernels of ``source``: its ``__pycache__`` and, when
    ``NUMBA_CACHE_DIR`` is set (numba then caches there only), numba's folder for it there."""
    folders = [source.parent / "__pycache__"]
    from numba.core import config
    from numba.core.caching import UserProvidedCacheLocator
    cache_dir = getattr(config, "CACHE_DIR", "")          # set from NUMBA_CACHE_DIR at numba's import
    if cache_dir:
        folders.append(Path(cache_dir) / UserProvidedCacheLocator.get_suitable_cache_subpath(str(source)))
    return folders


def _drop_stale_cache() -> None:
    """Delete numba's cached kernels of the core when any of its sources changed since they
    were cached (numba checks only each kernel's own file), in every cache folder a source
    may use (`cache_folders`): each folder keeps a hash of the sources, ``core-sources.sha1``.
    Silent where a folder is read-only: an installed copy does not change, and numba then
    caches elsewhere anyway."""
    digest = hashlib.sha1(b"".join(p.read_bytes() for p in SOURCES)).hexdigest()
    kept: dict[Path, list[Path]] = {}
    for src in SOURCES:
        for folder in cache_folders(src):
            kept.setdefault(folder, []).append(src)
    for folder, sources in kept.items():
        stamp = folder / "core-sources.sha1"
        try:
            if stamp.exists() and stamp.read_text() == digest:
                continue
            for src in sources:
                for f in folder.glob(f"{src.stem}.*.nb[ic]"):
                    f.unlink()
            folder.mkdir(parents=True, exist_ok=True)
            stamp.write_text(digest)
        except OSError:
            pass


_drop_stale_cache()

from .policies import POLICIES  # noqa: E402  (after the stale cache is gone)
from .sample import View, view_of  # noqa: E402
from .state import from_game  # noqa: E402
from .tree import Tree  # noqa: E402

__all__ = ["POLICIES", "View", "view_of", "from_game", "Tree", "SOURCES", "cache_folders"]
