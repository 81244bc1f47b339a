"""Stored experiments: named grids of agents on fixed deals, one stored row per game.

``ddzlab experiment run NAME`` plays an experiment of the catalog (resumable at the game),
``ddzlab experiment status`` shows what is stored (and what is damaged), ``ddzlab experiment
repair NAME`` keeps the intact rows of a damaged store; notebooks read the rows with
`load_games` and analyse them with `ddzlab.stats`. See `ddzlab.experiments.runner` (the
grid and the runner), `ddzlab.experiments.store` (the append-safe gzip file) and
`ddzlab.experiments.catalog` (the experiments by name).
"""
from .catalog import CATALOG, CHEAP_AGENTS, SEARCH_AGENTS
from .runner import (EXPERIMENTS_DIR, USER_EXPERIMENTS_DIR, Experiment, ExperimentError, arena_games, check_stores,
                     code_version, common_deals, deals_complete, experiment_dir, experiments_root, get_experiment,
                     load_games, repair_experiment, run_experiment, status, user_dir, user_root)
from .store import COLUMNS, BadRowsError, DamagedStoreError, StoreError

__all__ = ["CATALOG", "CHEAP_AGENTS", "SEARCH_AGENTS", "EXPERIMENTS_DIR", "Experiment", "ExperimentError",
           "arena_games", "code_version", "common_deals", "deals_complete", "experiment_dir", "experiments_root",
           "get_experiment", "load_games", "run_experiment", "status", "COLUMNS", "StoreError", "DamagedStoreError",
           "BadRowsError", "USER_EXPERIMENTS_DIR", "check_stores", "repair_experiment", "user_dir", "user_root"]
