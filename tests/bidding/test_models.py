"""Bidder pipelines, the CV protocol, and model files."""

import json
import pickle

import joblib
import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

from ddzlab.bidding.data import hands_frame, load_calls
from ddzlab.bidding.models import (FORMAT_TAG, FORMAT_VERSION, MODELS, best_cv_score, cv_folds, evaluate,
                                   feature_names, grid_search, load_bidder, make_bidder,
                                   save_bidder)
from ddzlab.errors import ModelFileError


@pytest.fixture(scope="module")
def calls():
    return load_calls()


@pytest.fixture(scope="module")
def sample(calls):
    return calls.sample(400, random_state=0).reset_index(drop=True)


@pytest.mark.parametrize("model", MODELS)
def test_pipeline_fits_and_predicts_a_small_sample(sample, model):
    bidder = make_bidder(model, "counts").fit(sample, sample.label)
    pred = bidder.predict(sample)
    assert set(np.unique(pred)) <= {0, 1}
    assert (pred == sample.label).mean() > 0.85          # it learned something
    one = bidder.predict(hands_frame(["3456789TJQKA2BR22"]))  # a monster hand: call
    assert one.tolist() == [1]
    weak = bidder.predict(hands_frame(["334455667899TJQK3"]))
    assert weak.tolist() == [0]


def test_cv_protocol_uses_the_stated_folds(calls):
    cv = cv_folds()
    assert isinstance(cv, StratifiedKFold)
    assert (cv.n_splits, cv.shuffle, cv.random_state) == (5, True, 0)
    ref = StratifiedKFold(5, shuffle=True, random_state=0)
    y = calls.label.to_numpy()
    for (a, _), (b, _) in zip(cv.split(calls, y), ref.split(calls, y)):
        assert np.array_equal(a, b)
    # evaluate and grid_search report exactly what the stated folds give
    bidder = make_bidder("linear_svc", "seed", C=0.01)
    s1 = evaluate(bidder, calls)
    manual = []
    for tr, te in ref.split(calls, y):
        m = make_bidder("linear_svc", "seed", C=0.01).fit(calls.iloc[tr], y[tr])
        manual.append((m.predict(calls.iloc[te]) == y[te]).mean())
    assert np.allclose(s1.scores, manual)
    gs = grid_search(make_bidder("linear_svc", "seed"), calls, {"clf__C": [0.01]})
    assert np.allclose(best_cv_score(gs).scores, manual)


def test_seed_reproduces_0932(calls):
    gs = grid_search(make_bidder("linear_svc", "seed"), calls, {"clf__C": [0.001, 0.01, 0.1, 1]})
    assert 0.925 <= gs.best_score_ <= 0.940


@pytest.fixture(scope="module")
def fitted(sample):
    return make_bidder("logreg", "counts").fit(sample, sample.label)


_FAMILIES: dict = {}


def _family(model, sample, features="counts"):
    """One fitted bidder per family and feature set for the module (gradient boosting kept
    to 10 iterations: a shared 2-core machine spends seconds per 100)."""
    key = (model, features)
    if key not in _FAMILIES:
        kw = {"max_iter": 10} if model == "gboost" else {}
        _FAMILIES[key] = make_bidder(model, features, **kw).fit(sample, sample.label)
    return _FAMILIES[key]


def _doc(path):
    return json.loads(path.read_text())


def _put(path, doc):
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("model", MODELS)
def test_save_load_round_trip_is_exact_on_the_real_data(tmp_path, sample, calls, model):
    """Every model family rebuilds from its JSON file with bit-identical scores on all of
    call.csv (floats are stored with repr, so nothing may be rounded)."""
    bidder = _family(model, sample, "shape")
    path = save_bidder(bidder, tmp_path / "m.json", note="test", cv_mean=np.float64(0.9))
    assert path.read_bytes().startswith(b"{")                 # JSON text, not a pickle
    back = load_bidder(path, expect_features=feature_names(bidder))
    assert np.array_equal(back.predict(calls), bidder.predict(calls))
    assert np.array_equal(back.decision_function(calls), bidder.decision_function(calls))
    doc = _doc(path)
    assert (doc["format"], doc["version"]) == (FORMAT_TAG, FORMAT_VERSION)
    assert doc["meta"] == {"note": "test", "cv_mean": 0.9}


def test_gboost_probabilities_round_trip(tmp_path, sample, calls):
    bidder = _family("gboost", sample, "shape")
    back = load_bidder(save_bidder(bidder, tmp_path / "m.json"))
    assert np.array_equal(back.predict_proba(calls), bidder.predict_proba(calls))


class _Touch:
    """Unpickling this object creates ``marker``: what a crafted model file could do."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


@pytest.mark.parametrize("name,dump", [
    ("evil.joblib", lambda obj, p: joblib.dump(obj, p)),
    ("evil.json", lambda obj, p: p.write_bytes(pickle.dumps(obj))),          # no telling name
    ("evil.bin", lambda obj, p: joblib.dump(obj, p, compress=3)),           # zlib-compressed
    ("evil.model", lambda obj, p: p.write_bytes(pickle.dumps(obj, protocol=0))),  # text pickle
])
def test_a_crafted_pickle_is_refused_and_runs_nothing(tmp_path, name, dump):
    marker = tmp_path / "pwned"
    payload = {"format": FORMAT_TAG, "version": FORMAT_VERSION, "model": _Touch(marker)}
    pickle.loads(pickle.dumps(payload))                  # the payload works when unpickled...
    assert marker.exists()
    marker.unlink()
    path = tmp_path / name
    dump(payload, path)
    with pytest.raises(ModelFileError) as err:
        load_bidder(path)
    assert not marker.exists()                           # ...and loading never unpickled it
    msg = str(err.value)
    if name != "evil.model":
        assert "pickle" in msg and "ddzlab train bidder" in msg
    from ddzlab.agents import make_agent
    with pytest.raises(ModelFileError):
        make_agent(f"threshold_bidder:model={path}")
    assert not marker.exists()


def test_truncated_file_raises_model_file_error(tmp_path, fitted):
    path = save_bidder(fitted, tmp_path / "m.json")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelFileError, match="not JSON"):
        load_bidder(path)


def test_garbage_file_raises_model_file_error(tmp_path):
    path = tmp_path / "m.json"
    path.write_bytes(b"this is not a model \x00\x01\x02" * 20)
    with pytest.raises(ModelFileError, match="not a readable bidder file"):
        load_bidder(path)
    path.write_bytes(b"[" * 100_000)                     # nesting too deep for the parser
    with pytest.raises(ModelFileError):
        load_bidder(path)


def test_foreign_and_old_files_raise_model_file_error(tmp_path, fitted):
    path = save_bidder(fitted, tmp_path / "m.json")
    doc = _doc(path)
    _put(path, {**doc, "format": "something.else"})
    with pytest.raises(ModelFileError, match="format tag"):
        load_bidder(path)
    _put(path, {**doc, "version": 1})
    with pytest.raises(ModelFileError, match="version 1.*retrain"):
        load_bidder(path)
    _put(path, [1, 2, 3])
    with pytest.raises(ModelFileError, match="format tag"):
        load_bidder(path)


def _edit(doc, where, value):
    """A copy of ``doc`` with the value at the key path ``where`` replaced."""
    doc = json.loads(json.dumps(doc))
    d = doc
    for k in where[:-1]:
        d = d[k]
    d[where[-1]] = value(d[where[-1]]) if callable(value) else value
    return doc


def _set_first(x, v):
    return {**x, "data": [v] + x["data"][1:]}


@pytest.mark.parametrize("model,where,value,match", [
    ("logreg", ("clf", "arrays", "coef_"), lambda a: _set_first(a, float("nan")), "NaN"),
    ("logreg", ("clf", "arrays", "coef_"), lambda a: _set_first(a, 1e300), "outside"),
    ("logreg", ("clf", "arrays", "coef_"), lambda a: _set_first(a, "1.0"), "holds a str"),
    ("logreg", ("clf", "arrays", "coef_"), lambda a: _set_first(a, True), "holds a bool"),
    ("logreg", ("clf", "arrays", "coef_"), lambda a: {**a, "shape": [1, 3]}, "shape"),
    ("logreg", ("clf", "arrays", "coef_"), lambda a: {**a, "dtype": "object"}, "dtype"),
    ("logreg", ("clf", "arrays", "coef_"), lambda a: {**a, "data": a["data"][:-1]}, "numbers"),
    ("logreg", ("clf", "type"), "builtins.eval", "unknown classifier"),
    ("logreg", ("clf", "type"), "SVC", "unknown parameter|has no"),
    ("logreg", ("clf", "params", "solver"), "os.system", "solver"),
    ("logreg", ("clf", "params", "__class__"), "x", "unknown parameter"),
    ("logreg", ("clf", "params", "C"), [1.0], "params.C is a list"),
    ("logreg", ("features",), ["seed", "subprocess"], "unknown feature"),
    ("logreg", ("features",), ["seed"], "shape|features"),
    ("logreg", ("scale", "scale_"), lambda a: _set_first(a, 0.0), "outside"),
    ("logreg", ("scale", "mean_"), lambda a: _set_first(a, float("inf")), "Infinity|outside"),
    ("logreg", ("clf", "classes"), lambda a: {**a, "data": [1, 0]}, "not increasing"),
    ("rbf_svc", ("clf", "arrays", "support_vectors_"), lambda a: {**a, "shape": [a["shape"][0] - 1, a["shape"][1]], "data": a["data"][:-a["shape"][1]]}, "shape"),
    ("rbf_svc", ("clf", "arrays", "_n_support"), lambda a: {**a, "data": [a["data"][0] + 5, a["data"][1]]}, "shape"),
    ("rbf_svc", ("clf", "arrays", "_gamma"), lambda a: {**a, "data": [-1.0]}, "gamma|outside"),
    ("rbf_svc", ("clf", "params", "kernel"), "precomputed", "kernel"),
    ("gboost", ("clf", "trees", 0, 0, "left"), lambda a: _set_first(a, 10**6), "left child"),
    ("gboost", ("clf", "trees", 0, 0, "right"), lambda a: _set_first(a, 0), "right child"),
    ("gboost", ("clf", "trees", 0, 0, "feature_idx"), lambda a: _set_first(a, 99), "outside"),
    ("gboost", ("clf", "trees", 0, 0, "value"), lambda a: _set_first(a, float("nan")), "NaN"),
])
def test_bad_values_are_refused(tmp_path, sample, model, where, value, match):
    path = save_bidder(_family(model, sample), tmp_path / "m.json")
    load_bidder(path)                                     # the unedited file loads
    _put(path, _edit(_doc(path), where, value))
    with pytest.raises(ModelFileError, match=match):
        load_bidder(path)


def test_oversized_file_is_refused_unread(tmp_path, fitted, monkeypatch):
    import ddzlab.bidding.modelfile as mf
    path = save_bidder(fitted, tmp_path / "m.json")
    monkeypatch.setattr(mf, "MAX_FILE_BYTES", path.stat().st_size - 1)
    with pytest.raises(ModelFileError, match="bytes, more than"):
        load_bidder(path)


def test_mismatched_features_raise_model_file_error(tmp_path, fitted):
    path = save_bidder(fitted, tmp_path / "m.json")
    with pytest.raises(ModelFileError, match="differ from the expected"):
        load_bidder(path, expect_features=["jokers", "bombs", "twos"])
    doc = _doc(path)
    _put(path, {**doc, "feature_names": doc["feature_names"][:-1]})
    with pytest.raises(ModelFileError, match="do not match"):
        load_bidder(path)


def test_unstorable_models_are_refused_at_save(tmp_path, sample):
    with pytest.raises(ValueError, match="fitted"):
        save_bidder(make_bidder(), tmp_path / "m.json")
    from sklearn.tree import DecisionTreeClassifier
    odd = make_bidder("logreg", "seed")
    odd.steps[2] = ("clf", DecisionTreeClassifier())
    odd.fit(sample, sample.label)
    with pytest.raises(ValueError, match="cannot be stored"):
        save_bidder(odd, tmp_path / "m.json")
    assert not (tmp_path / "m.json").exists()


def test_other_sklearn_version_warns(tmp_path, fitted):
    path = save_bidder(fitted, tmp_path / "m.json")
    _put(path, {**_doc(path), "sklearn_version": "0.1"})
    with pytest.warns(UserWarning, match="scikit-learn 0.1"):
        load_bidder(path)


def test_nested_cv_uses_the_shuffled_outer_and_inner_folds(sample):
    """nested_cv = for each outer fold of StratifiedKFold(5, shuffle, seed 0), a grid search on
    StratifiedKFold(5, shuffle, seed 1) of the training part, scored on the held-out part."""
    from sklearn.model_selection import GridSearchCV

    from ddzlab.bidding.models import nested_cv
    grid = {"clf__C": [0.001, 1.0]}
    got = nested_cv(make_bidder("linear_svc", "seed"), sample, grid)
    y = sample.label.to_numpy()
    manual = []
    for tr, te in StratifiedKFold(5, shuffle=True, random_state=0).split(sample, y):
        inner = GridSearchCV(make_bidder("linear_svc", "seed"), grid, scoring="accuracy",
                             cv=StratifiedKFold(5, shuffle=True, random_state=1))
        inner.fit(sample.iloc[tr], y[tr])
        manual.append((inner.predict(sample.iloc[te]) == y[te]).mean())
    assert np.allclose(got.scores, manual), (got.scores, manual)
