"""``ddzlab train bidder`` writes a model file that the threshold bidder loads."""
import io

from ddzlab.agents.threshold_bidder import ThresholdBidder
from ddzlab.bidding.models import load_bidder
from ddzlab.cli import main


def test_train_bidder_round_trip(tmp_path, capsys):
    path = tmp_path / "seed.json"
    assert main(["train", "bidder", "--model", "linear_svc", "--features", "seed", "--grid", "test",
                 "--out", str(path)], stdout=io.StringIO()) == 0
    assert "linear_svc/seed: 0.93" in capsys.readouterr().out and path.exists()
    model = load_bidder(path, expect_features=["jokers", "bombs", "twos"])
    assert list(model.predict(["3456789TJQKA2BR22", "334455667899TJQK3"])) == [1, 0]
    assert ThresholdBidder(path).level("3456789TJQKA2BR22") >= 1


def test_train_bidder_into_a_folder(tmp_path, capsys):
    assert main(["train", "bidder", "--model", "linear_svc", "--features", "seed", "--grid", "test",
                 "--out", str(tmp_path)], stdout=io.StringIO()) == 0
    assert (tmp_path / "bidder_linear_svc_seed.json").exists()


def test_the_saved_file_states_its_score_and_chosen_parameters(tmp_path, capsys):
    """The file's metadata: the cross-validated mean and SD printed, and the grid's choice."""
    import json
    path = tmp_path / "m.json"
    assert main(["train", "bidder", "--model", "linear_svc", "--features", "seed", "--grid", "test",
                 "--out", str(path)], stdout=io.StringIO()) == 0
    printed = capsys.readouterr().out
    meta = json.loads(path.read_text())["meta"]
    assert set(meta) == {"cv_mean", "cv_std", "params"}
    assert set(meta["params"]) == {"clf__C"} and str(meta["params"]["clf__C"]) in printed
    assert f"{meta['cv_mean']:.4f}" in printed and 0 < meta["cv_std"] < meta["cv_mean"] < 1


def test_the_trainer_s_defaults_and_choices(monkeypatch, tmp_path):
    """Defaults: the RBF SVC on the compact features, the quick grid, one job; every grid size
    is a choice, an unknown one is refused before any training."""
    import pytest
    from ddzlab.agents import bidder_train
    seen = []

    class Stop(Exception):
        pass

    def recording_grid(model, size):
        seen.append(("grid", model, size))
        return {}

    def stop(estimator, calls, grid, n_jobs):
        seen.append(("search", n_jobs))
        raise Stop

    monkeypatch.setattr(bidder_train, "make_bidder", lambda model, features: seen.append(("make", model, features)))
    monkeypatch.setattr(bidder_train, "default_grid", recording_grid)
    monkeypatch.setattr(bidder_train, "grid_search", stop)
    monkeypatch.setattr(bidder_train, "load_calls", lambda: None)
    for argv, want in [([], ("rbf_svc", "compact", "quick", 1)),
                       (["--grid", "test"], ("rbf_svc", "compact", "test", 1)),
                       (["--grid", "full", "--model", "logreg", "--features", "seed", "--jobs", "2"],
                        ("logreg", "seed", "full", 2))]:
        seen.clear()
        with pytest.raises(Stop):
            bidder_train.train_bidder([*argv, "--out", str(tmp_path)])
        assert seen == [("make", *want[:2]), ("grid", want[0], want[2]), ("search", want[3])]
    with pytest.raises(SystemExit):
        bidder_train.train_bidder(["--grid", "huge"])


def test_the_trainer_s_help_and_refusals(capsys):
    """``--help`` names the command, says what it does (the module's first line) and lists
    every choice; an unknown model or feature set is refused by name."""
    import pytest
    from ddzlab.agents import bidder_train
    from ddzlab.bidding.features import FEATURE_SETS
    from ddzlab.bidding.models import MODELS
    with pytest.raises(SystemExit):
        bidder_train.train_bidder(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert out.startswith("usage: ddzlab train bidder [-h]")
    assert bidder_train.__doc__.split("\n")[0] in out and "saved file" not in out     # the first line only
    assert "{" + ",".join(MODELS) + "}" in out and "{" + ",".join(FEATURE_SETS) + "}" in out
    assert "{test,quick,full}" in out
    assert "model file, or a folder to put it in (default data/models/bidder_MODEL_FEATURES.json)" in out
    for bad in (["--model", "nosuch"], ["--features", "nosuch"]):
        with pytest.raises(SystemExit):
            bidder_train.train_bidder(bad)
        assert "invalid choice: 'nosuch'" in capsys.readouterr().err


def test_without_out_the_model_goes_to_the_models_folder(monkeypatch, tmp_path):
    from ddzlab.agents import bidder_train
    monkeypatch.setattr(bidder_train, "MODELS_DIR", tmp_path)
    assert bidder_train.train_bidder(["--model", "linear_svc", "--features", "seed", "--grid", "test"]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["bidder_linear_svc_seed.json"]
