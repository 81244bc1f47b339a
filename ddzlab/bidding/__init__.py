"""Landlord bidding (叫分): labelled data, hand features, bidders, simulation labels, agents."""
from .data import CallFileError, as_hands, hands_frame, load_calls
from .features import (FEATURE_SETS, ChainFeatures, CompactFeatures, FewestPlays, GreedySplitValue, GroupCounts,
                       HandFeatures, HandPower, RankCounts, SeedFeatures, make_features)
from .models import (MODELS, CVScore, best_cv_score, cv_folds, default_grid, evaluate,
                     feature_frame, feature_names, grid_search, load_bidder, make_bidder,
                     nested_cv, save_bidder)

__all__ = ["CallFileError", "as_hands", "hands_frame", "load_calls", "FEATURE_SETS",
           "ChainFeatures", "CompactFeatures", "FewestPlays", "GreedySplitValue", "GroupCounts", "HandFeatures",
           "HandPower", "RankCounts", "SeedFeatures", "make_features", "MODELS", "CVScore",
           "best_cv_score", "cv_folds", "default_grid", "evaluate", "feature_frame",
           "feature_names", "grid_search", "load_bidder", "make_bidder", "nested_cv",
           "save_bidder"]
