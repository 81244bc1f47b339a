"""Landlord bidding (叫分) as pure functions of a hand: labelled data, hand features and bidding
models (`seed_svm`, the du-guai SVM, among them).

This package sits beside `ddzlab.analysis`, below the agents: the bidding agent is
`ddzlab.agents.threshold_bidder`, simulation labels (games played to label hands) are
`ddzlab.labels` and full-game bidding matches `ddzlab.matches`, in the arena layer.
"""
from .data import CallFileError, as_hands, hands_frame, load_calls
from .features import (FEATURE_SETS, ChainFeatures, CompactFeatures, FewestPlays, GreedySplitValue, GroupCounts,
                       HandFeatures, HandPower, RankCounts, SeedFeatures, make_features)
from .models import (MODELS, CVScore, best_cv_score, cv_folds, default_grid, evaluate,
                     feature_frame, feature_names, grid_search, load_bidder, make_bidder,
                     make_win_rate_model, nested_cv, save_bidder, seed_svm)

__all__ = ["CallFileError", "as_hands", "hands_frame", "load_calls", "FEATURE_SETS",
           "ChainFeatures", "CompactFeatures", "FewestPlays", "GreedySplitValue", "GroupCounts", "HandFeatures",
           "HandPower", "RankCounts", "SeedFeatures", "make_features", "MODELS", "CVScore",
           "best_cv_score", "cv_folds", "default_grid", "evaluate", "feature_frame",
           "feature_names", "grid_search", "load_bidder", "make_bidder", "nested_cv",
           "save_bidder", "seed_svm", "make_win_rate_model"]
