"""Bidders as scikit-learn Pipelines, the evaluation protocol, and model files.

A bidder is ``Pipeline([("features", ...), ("scale", StandardScaler()), ("clf", ...)])``
fitted on a DataFrame of hands (`ddzlab.bidding.data`) and the ``label`` column.

Evaluation protocol (the same for every model, so scores are comparable):
``StratifiedKFold(5, shuffle=True, random_state=0)``; a grid search picks
hyper-parameters on those folds and reports the best mean ± std, as du-guai did
(so the figure is a grid-selected, not a nested, estimate — `nested_cv` gives the nested one).

>>> from ddzlab.bidding.data import load_calls
>>> df = load_calls()
>>> res = grid_search(make_bidder("linear_svc", "seed"), df, {"clf__C": [0.001, 0.1]})
>>> round(float(res.best_score_), 3)
0.933
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence, Union

import numpy as np
import pandas as pd
import sklearn
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC

from ..errors import ModelFileError
from .features import make_features
from .modelfile import FORMAT_TAG, FORMAT_VERSION, read_bidder, write_bidder

__all__ = ["MODELS", "make_bidder", "seed_svm", "make_win_rate_model", "default_grid", "cv_folds", "CVScore", "evaluate", "best_cv_score",
           "grid_search", "nested_cv", "feature_names", "feature_frame", "save_bidder",
           "load_bidder", "FORMAT_TAG", "FORMAT_VERSION"]

#: the classifier families a bidder can use
MODELS = ("linear_svc", "rbf_svc", "logreg", "gboost")



def _classifier(model: str, random_state: int) -> Any:
    if model == "linear_svc":
        return LinearSVC(C=1.0, dual="auto", max_iter=20_000, random_state=random_state)
    if model == "rbf_svc":
        return SVC(kernel="rbf", C=1.0, gamma="scale", random_state=random_state)
    if model == "logreg":
        return LogisticRegression(C=1.0, max_iter=5_000)
    if model == "gboost":
        return HistGradientBoostingClassifier(random_state=random_state)
    raise ValueError(f"unknown model {model!r}; one of {', '.join(MODELS)}")


def make_bidder(model: str = "linear_svc", features: Union[str, Sequence] = "seed", *,
                random_state: int = 0, **clf_params: Any) -> Pipeline:
    """A bidding Pipeline: hand features → z-score → classifier (``clf__*`` params settable).

    ``features`` is a `FEATURE_SETS` name (``seed``, ``compact``, ``counts``, ``shape``,
    ``search``, ``rich``) or a list of transformers or their short names; extra keyword
    arguments go to the classifier, e.g. ``C=0.01``.
    """
    clf = _classifier(model, random_state)
    if clf_params:
        clf.set_params(**clf_params)
    return Pipeline([("features", make_features(features)), ("scale", StandardScaler()),
                     ("clf", clf)])


@lru_cache(maxsize=1)
def seed_svm(C: float = 0.01) -> Pipeline:
    """du-guai's bidder (docs/definitions.md#svm-bidder: three features, z-scored LinearSVC) fitted on call.csv
    (cached: fitted once per process)."""
    from .data import load_calls
    df = load_calls()
    return make_bidder("linear_svc", "seed", C=C).fit(df, df.label)


def make_win_rate_model(features: Union[str, Sequence] = "shape", random_state: int = 0) -> Pipeline:
    """A regressor Pipeline (features → z-score → gradient boosting) for simulated win rates.

    Plain (single-threaded) gradient boosting: a bidder scores one hand at a time, where the
    OpenMP histogram version spends more time starting threads than predicting."""
    from sklearn.ensemble import GradientBoostingRegressor
    return Pipeline([("features", make_features(features)), ("scale", StandardScaler()),
                     ("clf", GradientBoostingRegressor(max_depth=3, learning_rate=0.05,
                                                      n_estimators=200, subsample=0.8,
                                                      random_state=random_state))])


def default_grid(model: str, size: str = "quick") -> dict[str, list]:
    """The hyper-parameter grid searched for a model family (``size``: test, quick, full)."""
    if size not in ("test", "quick", "full"):
        raise ValueError(f"grid size {size!r}; use test, quick or full")
    small, full = size == "test", size == "full"
    if model == "linear_svc":
        return {"clf__C": list(np.logspace(-3, 1, 3 if small else 13 if full else 9))}
    if model == "logreg":
        return {"clf__C": list(np.logspace(-2, 2, 3 if small else 13 if full else 9))}
    if model == "rbf_svc":
        if small:
            return {"clf__C": [3.0], "clf__gamma": ["scale"]}
        if full:
            return {"clf__C": [0.3, 1, 3, 10, 30], "clf__gamma": ["scale", 0.003, 0.01, 0.03, 0.1]}
        return {"clf__C": [1, 3, 10], "clf__gamma": ["scale", 0.01, 0.03]}
    if model == "gboost":
        if small:
            return {"clf__max_depth": [3], "clf__learning_rate": [0.1]}
        if full:
            return {"clf__max_depth": [2, 3, None], "clf__learning_rate": [0.03, 0.1],
                    "clf__max_iter": [100, 300], "clf__l2_regularization": [0.0, 1.0]}
        return {"clf__max_depth": [2, 3], "clf__learning_rate": [0.03, 0.1],
                "clf__max_iter": [200]}
    raise ValueError(f"unknown model {model!r}; one of {', '.join(MODELS)}")


def cv_folds(n_splits: int = 5, random_state: int = 0) -> StratifiedKFold:
    """The project's folds: ``StratifiedKFold(5, shuffle=True, random_state=0)``."""
    return StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state)


@dataclass(frozen=True)
class CVScore:
    """Fold accuracies of one model on the project's folds."""

    name: str
    scores: tuple[float, ...]
    params: Mapping[str, Any]

    @property
    def mean(self) -> float:
        return float(np.mean(self.scores))

    @property
    def std(self) -> float:
        return float(np.std(self.scores))

    def __str__(self) -> str:
        return f"{self.name}: {self.mean:.4f} ± {self.std:.4f}"


def _xy(df: pd.DataFrame, label: str) -> tuple[pd.DataFrame, np.ndarray]:
    return df, df[label].to_numpy()


def evaluate(model: Pipeline, df: pd.DataFrame, *, name: str = "model", label: str = "label",
             cv: Any = None, n_jobs: int | None = None) -> CVScore:
    """Accuracy of ``model`` (its current parameters) on each of the project's folds."""
    X, y = _xy(df, label)
    scores = cross_val_score(model, X, y, cv=cv or cv_folds(), scoring="accuracy", n_jobs=n_jobs)
    return CVScore(name, tuple(float(s) for s in scores), {})


def grid_search(model: Pipeline, df: pd.DataFrame, grid: Mapping[str, Sequence] | None = None,
                *, label: str = "label", cv: Any = None, n_jobs: int | None = None,
                model_name: str | None = None) -> GridSearchCV:
    """Fit a `GridSearchCV` on the project's folds (refit on all rows with the best params)."""
    if grid is None:
        if model_name is None:
            raise ValueError("pass a grid or the model family name")
        grid = default_grid(model_name)
    X, y = _xy(df, label)
    gs = GridSearchCV(model, dict(grid), cv=cv or cv_folds(), scoring="accuracy",
                      n_jobs=n_jobs, refit=True)
    return gs.fit(X, y)


def best_cv_score(gs: GridSearchCV, name: str = "model") -> CVScore:
    """The fold accuracies of a fitted grid search's best parameters."""
    i = gs.best_index_
    n = gs.n_splits_
    scores = tuple(float(gs.cv_results_[f"split{k}_test_score"][i]) for k in range(n))
    return CVScore(name, scores, dict(gs.best_params_))


def nested_cv(model: Pipeline, df: pd.DataFrame, grid: Mapping[str, Sequence], *,
              label: str = "label", n_jobs: int | None = None, name: str = "model") -> CVScore:
    """Outer project folds, inner 5-fold grid search (seed 1): an unbiased accuracy estimate."""
    X, y = _xy(df, label)
    inner = GridSearchCV(model, dict(grid), cv=cv_folds(random_state=1), scoring="accuracy")
    scores = cross_val_score(inner, X, y, cv=cv_folds(), scoring="accuracy", n_jobs=n_jobs)
    return CVScore(name, tuple(float(s) for s in scores), {"nested": True})


def feature_names(model: Pipeline) -> list[str]:
    """Names of the features a bidder computes (its first step's output)."""
    return [str(n) for n in model.named_steps["features"].get_feature_names_out()]


def feature_frame(df: Any, features: Union[str, Sequence, Any] = "seed") -> pd.DataFrame:
    """The feature matrix of a feature set (or a fitted bidder's features) as a DataFrame."""
    if isinstance(features, Pipeline):
        tr = features.named_steps["features"]
    elif hasattr(features, "transform"):        # a feature step, fitted
        tr = features
    else:
        tr = make_features(features).fit(df)
    X = tr.transform(df)
    return pd.DataFrame(X, columns=[str(n) for n in tr.get_feature_names_out()],
                        index=getattr(df, "index", None))


# --- model files (JSON, never pickle: see `ddzlab.bidding.modelfile`) -------------------

def save_bidder(model: Pipeline, path: Union[str, Path], **meta: Any) -> Path:
    """Write a fitted bidder as a JSON bidder file (format tag, version, feature names, the
    steps' parameters and learned arrays); keyword arguments are stored as metadata.

    The file is data only: `load_bidder` rebuilds the model from known classes and checked
    values, so a bidder file can be exchanged without the risk of a pickle."""
    return write_bidder(model, path, meta)


def load_bidder(path: Union[str, Path], expect_features: Sequence[str] | None = None) -> Pipeline:
    """Read a bidder written by `save_bidder`.

    Raises `ModelFileError` when the file is unreadable, truncated or corrupt, is a pickle
    or joblib file (never unpickled: it could run code), is not a bidder file of this format
    version, holds a value that fails a check, or its features differ from the stored names
    or from ``expect_features``.
    """
    path = Path(path)
    model, doc = read_bidder(path)
    saved_with = doc.get("sklearn_version")
    if saved_with != sklearn.__version__:
        import warnings
        warnings.warn(f"{path}: saved with scikit-learn {saved_with}, running "
                      f"{sklearn.__version__}; predictions may differ", stacklevel=2)
    names = feature_names(model)
    if expect_features is not None and list(expect_features) != names:
        raise ModelFileError(f"{path}: model features {names} differ from the expected "
                             f"{list(expect_features)}")
    return model
