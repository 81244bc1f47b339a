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
