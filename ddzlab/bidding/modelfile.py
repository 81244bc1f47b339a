"""Bidder model files: a fitted bidder Pipeline as JSON that loading cannot turn into code.

A bidder file is one JSON document: a format tag and version, the feature names, and for
each Pipeline step its kind, its constructor parameters and its learned arrays
(``{"dtype", "shape", "data"}``; floats are written with ``repr``, so they round-trip bit
for bit). `read_bidder` rebuilds the Pipeline from known classes only: the hand-feature
transformers of `ddzlab.bidding.features`, ``StandardScaler`` and the four classifier
families of `ddzlab.bidding.models.MODELS`; every value is checked (type, dtype, shape,
finite, magnitude, tree and support-vector indices in range) before scikit-learn sees it,
because its compiled predictors trust their arrays.

Pickle or joblib files (the format before version 2) are refused with `ModelFileError`
before a byte of them is interpreted: unpickling runs whatever code the file names.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt
import sklearn
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC

from ..errors import ModelFileError
from .features import _BY_NAME, _SHORT, HandFeatures, make_features

__all__ = ["FORMAT_TAG", "FORMAT_VERSION", "MAX_FILE_BYTES", "MAX_ABS", "bidder_document",
           "write_bidder", "read_bidder"]

FORMAT_TAG = "ddzlab.bidder"
#: version 1 was a joblib pickle (refused); version 2 is this JSON document
FORMAT_VERSION = 2
#: larger files are refused unread (an RBF SVC on all of call.csv is about 2 MB)
MAX_FILE_BYTES = 64 * 2**20
#: learned numbers beyond this size mean a corrupt or crafted file (z-scored features keep
#: every real coefficient, threshold and leaf value many orders of magnitude below it)
MAX_ABS = 1e8
#: largest number of array elements one stored array may hold
MAX_ELEMENTS = 5_000_000

_CLASSIFIERS: dict[str, type] = {"LinearSVC": LinearSVC, "SVC": SVC,
                                 "LogisticRegression": LogisticRegression,
                                 "HistGradientBoostingClassifier": HistGradientBoostingClassifier}
_RETRAIN = ("retrain it with `ddzlab train bidder --model MODEL --features FEATURES --out "
            "FILE.json`, or convert a pickle you made yourself and trust, in Python: "
            "`save_bidder(joblib.load(OLD)['model'], NEW)`")
# how pickles start: protocol 2+, protocol 0/1 opcodes, and joblib's compressors (zlib, gzip,
# bz2, xz, lzma, lz4, zstd)
_PICKLE_MAGIC = (b"\x80", b"(", b"c", b"}", b"]", b"ZF", b"\x78", b"\x1f\x8b", b"BZh",
                 b"\xfd7zXZ", b"\x5d\x00", b"\x04\x22\x4d\x18", b"\x28\xb5\x2f\xfd")
# the tree node fields a predictor reads (the rest of sklearn's node record is zero here)
_NODE_FIELDS = ("value", "count", "feature_idx", "num_threshold", "missing_go_to_left",
                "left", "right", "gain", "depth", "is_leaf", "bin_threshold")


# --- writing -----------------------------------------------------------------------------

def _array(a: Any) -> dict:
    a = np.asarray(a)
    if a.dtype.kind == "f":
        data = [float(x) for x in a.ravel()]
    elif a.dtype.kind in "iub":
        data = [int(x) for x in a.ravel()]
    else:
        raise ValueError(f"cannot store an array of dtype {a.dtype}")
    return {"dtype": str(a.dtype), "shape": list(a.shape), "data": data}


def _plain(v: Any, what: str) -> Any:
    """A JSON value for ``v`` (numpy scalars and containers converted); others refused."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        if not math.isfinite(v):
            raise ValueError(f"{what}: {v} cannot be stored")
        return float(v)
    if isinstance(v, Mapping):
        return {str(k): _plain(x, what) for k, x in v.items()}
    if isinstance(v, (list, tuple, np.ndarray)):
        return [_plain(x, what) for x in v]
    raise ValueError(f"{what}: a {type(v).__name__} cannot be stored in a bidder file")


def _params(est: Any) -> dict:
    return {k: _plain(v, f"{type(est).__name__}.{k}")
            for k, v in est.get_params(deep=False).items()}


def _feature_step(tr: Any) -> list[str]:
    parts = ([t for _, t in tr.transformer_list] if isinstance(tr, FeatureUnion) else [tr])
    names = []
    for p in parts:
        if type(p) not in _SHORT or not isinstance(p, HandFeatures):
            raise ValueError(f"the feature step {type(p).__name__} is not one of ddzlab's "
                             f"hand features ({', '.join(_BY_NAME)}): it cannot be stored")
        names.append(_SHORT[type(p)])
    if isinstance(tr, FeatureUnion) and [n for n, _ in tr.transformer_list] != names:
        raise ValueError("the feature union's step names are not make_features' names")
    return names


def _classifier_state(clf: Any) -> dict:
    cls = type(clf)                 # (a name: comparing `type(clf)` itself narrows clf to `object` for mypy)
    kind = cls.__name__
    if _CLASSIFIERS.get(kind) is not cls:
        raise ValueError(f"a {kind} classifier cannot be stored; known: {', '.join(_CLASSIFIERS)}")
    if kind in ("LinearSVC", "LogisticRegression"):
        arrays = {k: getattr(clf, k) for k in ("coef_", "intercept_", "n_iter_")}
    elif kind == "SVC":
        arrays = {k: getattr(clf, k) for k in (
            "support_", "support_vectors_", "_n_support", "dual_coef_", "_dual_coef_",
            "intercept_", "_intercept_", "_probA", "_probB", "class_weight_", "n_iter_",
            "_num_iter")}
        arrays["_gamma"] = np.asarray(float(clf._gamma))
        arrays["fit_status_"] = np.asarray(int(clf.fit_status_))
        arrays["shape_fit_"] = np.asarray(clf.shape_fit_)
        if clf._sparse:
            raise ValueError("an SVC fitted on sparse input cannot be stored")
    else:  # HistGradientBoostingClassifier
        if clf.is_categorical_ is not None and np.any(clf.is_categorical_):
            raise ValueError("a gradient boosting model with categorical features cannot be stored")
        arrays = {"_baseline_prediction": clf._baseline_prediction}
        trees = []
        for it in clf._predictors:
            trees.append([{f: _array(p.nodes[f]) for f in _NODE_FIELDS} for p in it])
        return {"type": kind, "params": _params(clf), "classes": _array(clf.classes_),
                "n_features": int(clf.n_features_in_), "arrays": {k: _array(v) for k, v in arrays.items()},
                "n_trees_per_iteration": int(clf.n_trees_per_iteration_), "trees": trees}
    return {"type": kind, "params": _params(clf), "classes": _array(clf.classes_),
            "n_features": int(clf.n_features_in_),
            "arrays": {k: _array(v) for k, v in arrays.items()}}


def bidder_document(model: Pipeline, meta: Mapping[str, Any] | None = None) -> dict:
    """The JSON document of a fitted bidder Pipeline (``features`` → ``scale`` → ``clf``).

    Raises ``ValueError`` for a model the format cannot hold (unfitted, other steps, other
    estimators, more than two classes)."""
    if not isinstance(model, Pipeline) or [n for n, _ in model.steps] != ["features", "scale", "clf"]:
        raise ValueError("a bidder is a Pipeline of steps features, scale, clf (make_bidder)")
    clf, scale = model.named_steps["clf"], model.named_steps["scale"]
    if not hasattr(clf, "classes_") or not hasattr(scale, "scale_"):
        raise ValueError("save_bidder needs a fitted model")
    if type(scale) is not StandardScaler or not (scale.with_mean and scale.with_std):
        raise ValueError("the scale step must be a StandardScaler with mean and std")
    if len(clf.classes_) != 2:
        raise ValueError(f"a bidder has two classes (pass, call), this one {len(clf.classes_)}")
    from .models import feature_names
    return {"format": FORMAT_TAG, "version": FORMAT_VERSION,
            "sklearn_version": sklearn.__version__,
            "feature_names": feature_names(model),
            "classes": [int(c) for c in clf.classes_],
            "meta": _plain(dict(meta or {}), "meta"),
            "features": _feature_step(model.named_steps["features"]),
            "scale": {"mean_": _array(scale.mean_), "var_": _array(scale.var_),
                      "scale_": _array(scale.scale_),
                      "n_samples_seen_": _plain(scale.n_samples_seen_, "n_samples_seen_")},
            "clf": _classifier_state(clf)}


def write_bidder(model: Pipeline, path: Union[str, Path], meta: Mapping[str, Any] | None = None) -> Path:
    """Write `bidder_document` to ``path`` (through a temporary file, so a crash leaves no
    half-written model)."""
    doc = bidder_document(model, meta)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, allow_nan=False, separators=(",", ":")), encoding="utf-8")
    tmp.replace(path)
    return path


# --- reading -----------------------------------------------------------------------------

class _Bad(Exception):
    """A check failed (turned into ModelFileError with the file's name)."""


def _refuse_constant(name: str) -> None:
    raise _Bad(f"the file holds {name}, not a finite number")


def _check(cond: bool, msg: str) -> None:
    if not cond:
        raise _Bad(msg)


def _get(d: Any, key: str, kind: type | tuple, where: str) -> Any:
    _check(isinstance(d, dict), f"{where} is not an object")
    _check(key in d, f"{where} has no {key!r}")
    v = d[key]
    ok = isinstance(v, kind) and not (isinstance(v, bool) and bool not in (
        kind if isinstance(kind, tuple) else (kind,)))
    _check(ok, f"{where}.{key} is a {type(v).__name__}")
    return v


_DTYPES = {"f": ("float64", "float32"), "i": ("int64", "int32", "uint32", "uint8", "uint64")}


def _read_array(d: Any, where: str, kind: str, shape: Sequence[int | None] | None = None,
                lo: float = -MAX_ABS, hi: float = MAX_ABS) -> np.ndarray:
    """A stored array, checked: ``kind`` "f" (float64) or "i" (int64), the shape (None: any
    length on that axis), every element a JSON number of that kind within [lo, hi]."""
    dtype = _get(d, "dtype", str, where)
    _check(dtype in _DTYPES[kind], f"{where} has dtype {dtype!r}, expected one of {_DTYPES[kind]}")
    shp = _get(d, "shape", list, where)
    _check(all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= MAX_ELEMENTS
               for n in shp) and len(shp) <= 3, f"{where} has a bad shape {shp}")
    size = math.prod(shp)
    _check(size <= MAX_ELEMENTS, f"{where} has {size} elements")
    if shape is not None:
        _check(len(shp) == len(shape) and all(w is None or w == n for w, n in zip(shape, shp)),
               f"{where} has shape {tuple(shp)}, expected "
               f"{tuple('any' if w is None else w for w in shape)}")
    data = _get(d, "data", list, where)
    _check(len(data) == size, f"{where} holds {len(data)} numbers for shape {tuple(shp)}")
    types = (int, float) if kind == "f" else (int,)
    for x in data:
        if type(x) not in types:
            raise _Bad(f"{where} holds a {type(x).__name__} ({str(x)[:40]!r})")
        if not lo <= x <= hi:    # NaN fails this too
            raise _Bad(f"{where} holds {x}, outside [{lo:g}, {hi:g}]")
    return np.array(data, dtype=np.float64 if kind == "f" else np.int64).reshape(shp)


def _read_params(cls: type, params: Any, where: str) -> Any:
    _check(isinstance(params, dict), f"{where}.params is not an object")
    known = cls().get_params(deep=False)
    for k, v in params.items():
        _check(k in known, f"{where}.params has an unknown parameter {k!r}")
        _check(v is None or isinstance(v, (bool, int, float, str)),
               f"{where}.params.{k} is a {type(v).__name__}")
        _check(not isinstance(v, float) or abs(v) <= MAX_ABS, f"{where}.params.{k} = {v}")
    est = cls(**params)
    try:
        est._validate_params()
    except Exception as e:  # sklearn's own parameter constraints
        raise _Bad(f"{where}.params: {e}") from None
    return est


def _rebuild_linear(clf: Any, a: dict, nf: int) -> None:
    clf.coef_ = _read_array(a.get("coef_"), "clf.coef_", "f", (1, nf))
    clf.intercept_ = _read_array(a.get("intercept_"), "clf.intercept_", "f", (1,))
    n_iter = _read_array(a.get("n_iter_"), "clf.n_iter_", "i", None, 0, 10**9)
    _check(n_iter.ndim <= 1, "clf.n_iter_ has a bad shape")
    clf.n_iter_ = int(n_iter) if n_iter.ndim == 0 else n_iter.astype(np.int32)


def _rebuild_svc(clf: Any, a: dict, nf: int) -> None:
    _check(clf.kernel in ("rbf", "linear", "poly", "sigmoid"), f"SVC kernel {clf.kernel!r}")
    ns = _read_array(a.get("_n_support"), "clf._n_support", "i", (2,), 0, MAX_ELEMENTS)
    n_sv = int(ns.sum())
    _check(n_sv >= 1, "the SVC has no support vectors")
    clf._n_support = ns.astype(np.int32)
    fit_rows = _read_array(a.get("shape_fit_"), "clf.shape_fit_", "i", (2,), 0, MAX_ELEMENTS)
    _check(int(fit_rows[1]) == nf, f"clf.shape_fit_ {fit_rows.tolist()} for {nf} features")
    clf.shape_fit_ = (int(fit_rows[0]), int(fit_rows[1]))
    clf.support_ = _read_array(a.get("support_"), "clf.support_", "i", (n_sv,), 0,
                               max(int(fit_rows[0]) - 1, 0)).astype(np.int32)
    clf.support_vectors_ = _read_array(a.get("support_vectors_"), "clf.support_vectors_", "f",
                                       (n_sv, nf))
    for k in ("dual_coef_", "_dual_coef_"):
        setattr(clf, k, _read_array(a.get(k), f"clf.{k}", "f", (1, n_sv)))
    for k in ("intercept_", "_intercept_", "class_weight_"):
        shape = (2,) if k == "class_weight_" else (1,)
        setattr(clf, k, _read_array(a.get(k), f"clf.{k}", "f", shape))
    for k in ("_probA", "_probB"):
        setattr(clf, k, _read_array(a.get(k), f"clf.{k}", "f", (None,)))
        _check(getattr(clf, k).size <= 1, f"clf.{k} has more than one value")
    for k in ("n_iter_", "_num_iter"):
        setattr(clf, k, _read_array(a.get(k), f"clf.{k}", "i", (1,), 0, 10**9).astype(np.int32))
    gamma = float(_read_array(a.get("_gamma"), "clf._gamma", "f", (), 0.0, MAX_ABS))
    _check(gamma > 0, f"clf._gamma = {gamma}")
    clf._gamma = gamma
    clf.fit_status_ = int(_read_array(a.get("fit_status_"), "clf.fit_status_", "i", (), 0, 1))
    clf._sparse = False
    clf._effective_probability = bool(clf._probA.size)


def _rebuild_hgb(clf: Any, doc: dict, nf: int) -> None:
    from sklearn._loss.loss import HalfBinomialLoss
    from sklearn.ensemble._hist_gradient_boosting.binning import _BinMapper
    from sklearn.ensemble._hist_gradient_boosting.common import PREDICTOR_RECORD_DTYPE
    from sklearn.ensemble._hist_gradient_boosting.predictor import TreePredictor
    a = doc["arrays"]
    _check(_get(doc, "n_trees_per_iteration", int, "clf") == 1, "a binary model has one tree per iteration")
    clf.n_trees_per_iteration_ = 1
    clf._baseline_prediction = _read_array(a.get("_baseline_prediction"),
                                           "clf._baseline_prediction", "f", (1, 1))
    iters = _get(doc, "trees", list, "clf")
    _check(len(iters) <= 100_000, f"{len(iters)} boosting iterations")
    predictors = []
    for i, it in enumerate(iters):
        _check(isinstance(it, list) and len(it) == 1, f"clf.trees[{i}] is not one tree")
        fields: dict[str, np.ndarray] = {}
        length: Optional[int] = None    # the first field's, which the others must have
        for f in _NODE_FIELDS:
            where = f"clf.trees[{i}].{f}"
            kind = "f" if PREDICTOR_RECORD_DTYPE[f].kind == "f" else "i"
            hi = {"feature_idx": nf - 1, "missing_go_to_left": 1, "is_leaf": 1,
                  "bin_threshold": 255}.get(f, MAX_ABS if kind == "f" else 2**32 - 1)
            lo = -MAX_ABS if kind == "f" else 0
            arr = _read_array(it[0].get(f) if isinstance(it[0], dict) else None, where, kind,
                              (length,), lo, hi)
            length = len(arr) if length is None else length
            fields[f] = arr
        n_nodes = len(fields[_NODE_FIELDS[0]])
        _check(n_nodes >= 1, f"clf.trees[{i}] has no nodes")
        idx = np.arange(n_nodes)
        inner = fields["is_leaf"] == 0
        for side in ("left", "right"):   # children come after their parent: no cycles
            ch = fields[side][inner]
            _check(bool(np.all((ch > idx[inner]) & (ch < n_nodes))),
                   f"clf.trees[{i}] has a {side} child index out of order or out of range")
        nodes: npt.NDArray[np.void] = np.zeros(n_nodes, dtype=PREDICTOR_RECORD_DTYPE)   # (a record per node)
        for f, arr in fields.items():
            nodes[f] = arr
        empty = np.zeros((0, 8), dtype=np.uint32)
        predictors.append([TreePredictor(nodes, empty, empty.copy())])
    clf._predictors = predictors
    clf._preprocessor = None
    clf.is_categorical_ = None
    clf._n_features = nf
    mapper = _BinMapper(n_bins=clf.max_bins + 1)
    mapper.is_categorical_ = np.zeros(nf, dtype=np.uint8)
    mapper.bin_thresholds_ = [np.zeros(0) for _ in range(nf)]
    mapper.missing_values_bin_idx_ = clf.max_bins
    mapper.n_bins_non_missing_ = np.zeros(nf, dtype=np.uint32)
    clf._bin_mapper = mapper
    clf._loss = HalfBinomialLoss()
    clf.do_early_stopping_ = False
    clf.train_score_ = np.zeros(0)
    clf.validation_score_ = np.zeros(0)


_REBUILD: dict[str, Callable[[Any, Any, int], None]] = {
    "LinearSVC": _rebuild_linear, "LogisticRegression": _rebuild_linear, "SVC": _rebuild_svc}


def _rebuild(doc: Any) -> tuple[Pipeline, list[str]]:
    features = _get(doc, "features", list, "file")
    _check(1 <= len(features) <= len(_BY_NAME) and all(isinstance(f, str) and f in _BY_NAME
                                                       for f in features),
           f"unknown feature steps {features}; known: {', '.join(_BY_NAME)}")
    tr = make_features(features).fit(["3"])
    from .models import feature_names
    nf = len(tr.get_feature_names_out())

    sd = _get(doc, "scale", dict, "file")
    scale = StandardScaler()
    scale.mean_ = _read_array(sd.get("mean_"), "scale.mean_", "f", (nf,))
    scale.var_ = _read_array(sd.get("var_"), "scale.var_", "f", (nf,), 0.0)
    scale.scale_ = _read_array(sd.get("scale_"), "scale.scale_", "f", (nf,), 1e-12)
    n_seen = _get(sd, "n_samples_seen_", (int, float), "scale")
    _check(0 < n_seen <= 10**12, f"scale.n_samples_seen_ = {n_seen}")
    scale.n_samples_seen_ = n_seen
    scale.n_features_in_ = nf

    cd = _get(doc, "clf", dict, "file")
    kind = _get(cd, "type", str, "clf")
    _check(kind in _CLASSIFIERS, f"unknown classifier {kind!r}; known: {', '.join(_CLASSIFIERS)}")
    clf = _read_params(_CLASSIFIERS[kind], cd.get("params"), "clf")
    _check(_get(cd, "n_features", int, "clf") == nf,
           f"clf.n_features = {cd['n_features']}, the feature step makes {nf}")
    classes = _read_array(cd.get("classes"), "clf.classes", "i", (2,), -2**31, 2**31)
    _check(classes[0] < classes[1], f"clf.classes {classes.tolist()} not increasing")
    _check(classes.tolist() == doc.get("classes"), "clf.classes differ from the file's classes")
    clf.classes_ = classes
    clf.n_features_in_ = nf
    _get(cd, "arrays", dict, "clf")
    if kind == "HistGradientBoostingClassifier":
        _rebuild_hgb(clf, cd, nf)
    else:
        _REBUILD[kind](clf, cd["arrays"], nf)
    model = Pipeline([("features", tr), ("scale", scale), ("clf", clf)])
    return model, feature_names(model)


def _looks_pickled(head: bytes, path: Path) -> bool:
    return head.startswith(_PICKLE_MAGIC) or path.suffix.lower() in (".joblib", ".pkl", ".pickle")


def read_bidder(path: Union[str, Path]) -> tuple[Pipeline, dict]:
    """The Pipeline and the document (without its arrays' use) of a bidder file.

    Raises `ModelFileError` for anything but a version-2 bidder file whose every value
    checks, or that is missing or unreadable."""
    path = Path(path)
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            head = fh.read(8)
    except FileNotFoundError:
        raise ModelFileError(f"{path}: no such bidder file (make one with `ddzlab train "
                             "bidder --out FILE.json`)") from None
    except OSError as e:
        raise ModelFileError(f"{path}: cannot read the bidder file ({e.strerror})") from None
    if not head.lstrip().startswith(b"{") and _looks_pickled(head, path):
        raise ModelFileError(
            f"{path}: a pickle/joblib file (the bidder format before version 2), never "
            "loaded: unpickling runs any code the file names. To use this model, "
            f"{_RETRAIN}")
    if size > MAX_FILE_BYTES:
        raise ModelFileError(f"{path}: {size} bytes, more than a bidder file holds "
                             f"({MAX_FILE_BYTES} at most)")
    try:
        doc = json.loads(path.read_bytes().decode("utf-8"), parse_constant=_refuse_constant)
    except _Bad as e:
        raise ModelFileError(f"{path}: {e}") from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ModelFileError(f"{path}: not a readable bidder file (not JSON: "
                             f"{type(e).__name__}: {str(e)[:120]})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT_TAG:
        raise ModelFileError(f"{path}: not a ddzlab bidder file (no {FORMAT_TAG!r} format tag)")
    if doc.get("version") != FORMAT_VERSION:
        raise ModelFileError(f"{path}: bidder file version {doc.get('version')!r}, this "
                             f"ddzlab reads version {FORMAT_VERSION}; {_RETRAIN}")
    try:
        model, names = _rebuild(doc)
    except _Bad as e:
        raise ModelFileError(f"{path}: {e}") from None
    stored = doc.get("feature_names")
    if names != stored:
        raise ModelFileError(f"{path}: stored feature names {stored} do not match the "
                             f"model's features {names}")
    return model, doc
