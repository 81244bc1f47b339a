"""ddzlab as a reinforcement-learning environment (the ``env`` extra: pettingzoo, gymnasium).

* `DouDizhuEnv` (`ddzlab.env.aec`): PettingZoo AEC, three agents, action masks.
* `SingleSeatEnv` (`ddzlab.env.single`): Gymnasium, one learning seat against ddzlab agents.
* `move_index` (`ddzlab.env.index`): the fixed, versioned numbering of every move (the actions).
* `douzero_obs`, `compact_obs` (`ddzlab.env.encode`): DouZero's features exactly, and a compact one.
* `ddzlab.env.dmc`: Deep Monte-Carlo, DouZero's training method, on CPU (torch, the ``douzero``
  extra): DouZero-format models that ``douzero:<folder>`` plays (``ddzlab train dmc``).
  `ddzlab.env.learn` is the numpy teaching example of notebook 08.

The index and the encodings need only numpy; the two environments import PettingZoo and
Gymnasium when first used and say how to install them if they are missing. Guide: docs/env.md.
"""
from __future__ import annotations

from typing import Any

from .encode import COMPACT_LAYOUT, COMPACT_SIZE, compact_obs, douzero_obs
from .index import INDEX_VERSION, MoveIndex, move_index
from .table import Table

_LAZY = {"DouDizhuEnv": "aec", "raw_env": "aec", "env": "aec", "SingleSeatEnv": "single"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["DouDizhuEnv", "SingleSeatEnv", "raw_env", "env", "MoveIndex", "move_index", "INDEX_VERSION",
           "douzero_obs", "compact_obs", "COMPACT_LAYOUT", "COMPACT_SIZE", "Table"]
