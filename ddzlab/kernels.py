"""What the compiled kernels number and lay out, declared once and without numba.

A kernel takes numbers where Python has names (a rollout policy, a move filter, a rule of the
`weights` agent) and flat ``int64`` arrays where Python has objects (a world, a rule set's
table, a tree node, the weights parameters). Both are declared here, once:

* `Codes`: names in kernel order; ``codes.code(name)`` is the number a kernel branches on.
  The Python side names its kernel by one of these names (the rollout classes' ``kernel``,
  `ddzlab.agents.mcts.MOVE_FILTERS`, `ddzlab.agents.weights.RULES`), so there is no second
  table to keep in step with a first.
* `Layout`: named fields of given sizes, laid out in order; the offsets are computed
  (``layout.offset(name)``), the capacity of a field is checked where a value is written
  (`Layout.check`), and `Layout.describe` names the values of an array for debugging.

The kernels read the offsets as module constants (numba freezes globals when it compiles),
derived from these layouts in the kernel modules.

>>> STATE.offset("to_act"), STATE.size
(9, 23)
>>> POLICIES.code("greedy"), FILTERS.names
(2, ('all', 'split', 'split+policy'))
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence, Union

import numpy as np

from .errors import DdzError


class KernelLayoutError(DdzError):
    """A value does not fit a kernel's array or code table (too many items, unknown name)."""


class Codes:
    """Names a kernel knows by number: the number of a name is its position."""

    def __init__(self, what: str, names: Sequence[str]) -> None:
        if len(set(names)) != len(names):
            raise KernelLayoutError(f"{what}: a name is listed twice in {tuple(names)}")
        self.what = what
        self.names = tuple(names)

    def code(self, name: str) -> int:
        """The kernel's number for ``name``."""
        try:
            return self.names.index(name)
        except ValueError:
            raise KernelLayoutError(f"unknown {self.what} {name!r}: {', '.join(self.names)}") from None

    def mask(self, names: Iterable[str]) -> int:
        """A bit mask with the bit of each name set."""
        out = 0
        for name in names:
            out |= 1 << self.code(name)
        return out

    def __iter__(self):
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def __repr__(self) -> str:
        return f"Codes({self.what!r}, {self.names})"


class Layout:
    """Named fields of a flat array, in order: ``fields`` = ((name, size), ...)."""

    def __init__(self, what: str, fields: Sequence[tuple[str, int]]) -> None:
        self.what = what
        self.fields = tuple(fields)
        self._offsets: dict[str, tuple[int, int]] = {}
        at = 0
        for name, size in self.fields:
            if name in self._offsets or size < 1:
                raise KernelLayoutError(f"{what}: field {name!r} is listed twice or has no room")
            self._offsets[name] = (at, size)
            at += size
        self.size = at

    def offset(self, name: str) -> int:
        """Where field ``name`` starts."""
        return self._field(name)[0]

    def capacity(self, name: str) -> int:
        """How many values field ``name`` holds."""
        return self._field(name)[1]

    def _field(self, name: str) -> tuple[int, int]:
        try:
            return self._offsets[name]
        except KeyError:
            raise KernelLayoutError(f"{self.what} has no field {name!r}: "
                                    f"{', '.join(n for n, _ in self.fields)}") from None

    def check(self, name: str, count: int, why: str = "") -> None:
        """Raise `KernelLayoutError` unless ``count`` values fit field ``name``."""
        room = self.capacity(name)
        if not 0 <= count <= room:
            raise KernelLayoutError(f"{self.what}: {count} values for {name!r}, which holds {room}"
                                    + (f" ({why})" if why else ""))

    def describe(self, array: Union[Sequence[Any], np.ndarray]) -> dict[str, Any]:
        """{field: value} of an array laid out so (a field of several values: their list)."""
        if len(array) < self.size:
            raise KernelLayoutError(f"{self.what} needs {self.size} values, the array has {len(array)}")
        out: dict[str, Any] = {}
        for name, (at, size) in self._offsets.items():
            vals = [v.item() if hasattr(v, "item") else v for v in array[at:at + size]]
            out[name] = vals[0] if size == 1 else vals
        return out

    def __repr__(self) -> str:
        return f"Layout({self.what!r}, size={self.size})"


# -- codes ------------------------------------------------------------------------------------

#: rollout policies (`ddzlab.agents.mcts`'s rollout classes name theirs in ``kernel``)
POLICIES = Codes("rollout policy", ("random", "halfsolo", "greedy", "weights"))
#: the tree's move filters (`ddzlab.agents.mcts`'s ``moves``)
FILTERS = Codes("move filter", ("all", "split", "split+policy"))
#: the `weights` agent's named rules in the order it tries them (`ddzlab.agents.weights.RULES`)
WEIGHTS_RULES = Codes("weights rule", ("finish", "spare_partner", "gatekeeper", "keep_lead", "one_card_guard",
                                       "split_vs_two", "feed_partner", "urgent_block", "bomb"))

# -- layouts ----------------------------------------------------------------------------------

#: the most seats a world holds
MAX_SEATS = 3

#: a world in play (`ddzlab.search.state`): per seat its hand, cards left, plays and cards
#: played; who acts, the landlord (-1: none), the move to beat (meta -1: leading) and its seat,
#: passes in a row, bombs, the winner (-1 while playing), players, the bid, the revealed kitty
STATE = Layout("world state", (
    ("hand", MAX_SEATS), ("size", MAX_SEATS), ("plays", MAX_SEATS),
    ("to_act", 1), ("lord", 1), ("last_cards", 1), ("last_meta", 1), ("last_seat", 1),
    ("passes", 1), ("bombs", 1), ("winner", 1), ("players", 1), ("bid", 1),
    ("played", MAX_SEATS), ("kitty", 1)))

#: per chain spec and per attachment spec: how many values the table stores
CHAIN_FIELDS = 5        # kind, width, step, min length, max length
ATTACH_FIELDS = 10      # kind, base width, base step, kicker width, per unit, min, max, distinct,
#                         is a unit attachment (base trio or quad), unused
MAX_UNITS, MAX_CHAINS, MAX_ATTACHMENTS = 4, 6, 10

#: a rule set as the move kernels read it (`ddzlab.moves.compiled.core_table`)
TABLE = Layout("core table", (
    ("deck", 16),                   # deck count per slot (slot 15: the flower card F)
    ("chain_ok", 15),               # 1: the rank may stand in a chain
    ("rocket", 1),
    ("longest_trio", 1),            # the longest trio chain (the leading plane filter reads it)
    ("n_units", 1), ("units", 2 * MAX_UNITS),                          # (kind, width) per unit kind
    ("n_chains", 1), ("chains", CHAIN_FIELDS * MAX_CHAINS),
    ("n_attach", 1), ("attach", ATTACH_FIELDS * MAX_ATTACHMENTS),
    ("chain_slots", 1),             # the chain ranks as a slot mask (bit 4r)
    ("quad_slots", 1),              # the ranks the deck holds four of (a bomb's ranks), as a slot mask
    ("wild", 1),                    # the ranks F may stand for, as a slot mask (0: no F)
    ("tiers", 32)))                 # the bomb tier of each kind (`Rules.bomb_order`; 0: not a bomb)

#: a node of a compiled tree (a row of `ddzlab.search.tree.Tree.ints`)
NODE = Layout("tree node", (
    ("parent", 1), ("seat", 1), ("cards", 1), ("meta", 1), ("visits", 1), ("avail", 1),
    ("first", 1), ("last", 1), ("next", 1), ("ustart", 1), ("ucount", 1)))

#: the weights play's parameters (`ddzlab.agents.weights_compiled.params`): the `RuleWeights`
#: fields, then the bit mask of the rules switched off
PARAMS = Layout("weights parameters", (
    ("follow_threshold", 1), ("high_cost", 1), ("early_cards", 1), ("partner_out", 1), ("partner_gain", 1),
    ("partner_max_rank", 1), ("gate_lo", 1), ("gate_hi", 1), ("gate_below", 1), ("urgent_cards", 1),
    ("bomb_threat", 1), ("bomb_rest_plays", 1), ("off", 1)))

__all__ = ["Codes", "Layout", "KernelLayoutError", "POLICIES", "FILTERS", "WEIGHTS_RULES", "STATE", "TABLE",
           "NODE", "PARAMS", "MAX_SEATS", "CHAIN_FIELDS", "ATTACH_FIELDS", "MAX_UNITS", "MAX_CHAINS",
           "MAX_ATTACHMENTS"]
