"""Bidder pipelines, the CV protocol, and model files."""

import joblib
import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

from ddzlab.bidding.data import hands_frame, load_calls
from ddzlab.bidding.models import (MODELS, FORMAT_TAG, best_cv_score, cv_folds, evaluate,
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


def test_save_load_round_trip(tmp_path, fitted, sample):
    path = save_bidder(fitted, tmp_path / "m.joblib", note="test")
    back = load_bidder(path, expect_features=feature_names(fitted))
    assert np.array_equal(back.predict(sample), fitted.predict(sample))
    assert np.allclose(back.decision_function(sample), fitted.decision_function(sample))


def test_truncated_file_raises_model_file_error(tmp_path, fitted):
    path = save_bidder(fitted, tmp_path / "m.joblib")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelFileError):
        load_bidder(path)


def test_garbage_file_raises_model_file_error(tmp_path):
    path = tmp_path / "m.joblib"
    path.write_bytes(b"this is not a model \x00\x01\x02" * 20)
    with pytest.raises(ModelFileError, match="not a readable model file"):
        load_bidder(path)


def test_foreign_pickle_raises_model_file_error(tmp_path, fitted):
    path = tmp_path / "m.joblib"
    joblib.dump(fitted, path)                              # bare pipeline: no format tag
    with pytest.raises(ModelFileError, match="format tag"):
        load_bidder(path)
    joblib.dump({"format": FORMAT_TAG, "version": 99, "model": fitted}, path)
    with pytest.raises(ModelFileError, match="version"):
        load_bidder(path)


def test_mismatched_features_raise_model_file_error(tmp_path, fitted, sample):
    path = save_bidder(fitted, tmp_path / "m.joblib")
    with pytest.raises(ModelFileError, match="differ from the expected"):
        load_bidder(path, expect_features=["jokers", "bombs", "twos"])
    payload = joblib.load(path)                             # stored names edited: mismatch
    payload["feature_names"] = payload["feature_names"][:-1]
    joblib.dump(payload, path)
    with pytest.raises(ModelFileError, match="do not match"):
        load_bidder(path)
    payload = joblib.load(tmp_path / "m.joblib")            # features swapped after fitting
    other = make_bidder("logreg", "seed").fit(sample, sample.label)
    payload["model"].steps[0] = other.steps[0]
    payload["feature_names"] = feature_names(payload["model"])
    joblib.dump(payload, path)
    with pytest.raises(ModelFileError, match="scaler was fitted"):
        load_bidder(path)


def test_save_needs_a_fitted_model(tmp_path):
    with pytest.raises(ValueError):
        save_bidder(make_bidder(), tmp_path / "m.joblib")


def test_other_sklearn_version_warns(tmp_path, fitted):
    path = save_bidder(fitted, tmp_path / "m.joblib")
    payload = joblib.load(path)
    payload["sklearn_version"] = "0.1"
    joblib.dump(payload, path)
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
