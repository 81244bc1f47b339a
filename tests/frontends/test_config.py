"""Run scale and reproducible figure files."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from ddzlab import config  # noqa: E402


def _figure(seed: int):
    rng = np.random.default_rng(seed)
    fig, ax = plt.subplots()
    ax.scatter(rng.normal(size=50), rng.normal(size=50))
    return fig


def test_same_seed_same_bytes(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "CACHE_DIR", tmp_path)
    monkeypatch.setenv("DDZLAB_SCALE", "test")
    first = config.savefig(_figure(1), "a.png").read_bytes()
    again = config.savefig(_figure(1), "a.png").read_bytes()
    other = config.savefig(_figure(2), "a.png").read_bytes()
    assert first == again and first != other
    assert config.figures_dir() == tmp_path / "figures-test"


def test_scale_is_checked(monkeypatch):
    monkeypatch.setenv("DDZLAB_SCALE", "huge")
    with pytest.raises(ValueError, match="DDZLAB_SCALE='huge'"):
        config.scaled(1, 2, 3)
    monkeypatch.setenv("DDZLAB_SCALE", "full")
    assert config.scaled(1, 2, 3) == 3


def test_machine_dependent_figures_stay_out_of_figures(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "MACHINE_FIGURES_DIR", tmp_path / "machine")
    monkeypatch.setattr(config, "FIGURES_DIR", tmp_path / "figures")
    monkeypatch.setenv("DDZLAB_SCALE", "quick")
    path = config.savefig(_figure(1), "t.png", machine=True)
    assert path == tmp_path / "machine" / "t.png" and path.exists()
    assert not (tmp_path / "figures").exists()


def test_results_page_lists_every_committed_figure():
    page = (config.ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    missing = [p.name for p in sorted(config.FIGURES_DIR.glob("*.png")) if f"../figures/{p.name}" not in page]
    assert not missing, f"figures docs/results.md does not show (run `ddzlab report --regenerate`): {missing}"


def test_scale_factor_multiplies_quick_sizes_up_to_full(monkeypatch, tmp_path):
    monkeypatch.setattr(config, "REPORT_DIR", tmp_path / "report")
    monkeypatch.setattr(config, "FIGURES_DIR", tmp_path / "figures")
    monkeypatch.setenv("DDZLAB_SCALE", "quick")
    monkeypatch.delenv("DDZLAB_SCALE_FACTOR", raising=False)
    assert config.scaled(10, 300, 10_000) == 300 and config.run_dir() == tmp_path / "report"
    assert config.figures_dir() == tmp_path / "figures"
    monkeypatch.setenv("DDZLAB_SCALE_FACTOR", "4")
    assert config.scaled(10, 300, 10_000) == 1200 and config.scaled(10, 300, 500) == 500
    assert config.scaled(1, 0.5, 2.0) == 2.0 and config.scaled("a", "b", "c") == "b"
    assert config.figures_dir() == tmp_path / "report" / "x4" / "figures"       # beside, not over
    monkeypatch.setenv("DDZLAB_SCALE", "full")
    assert config.scaled(10, 300, 10_000) == 10_000                              # no factor at full
    assert config.figures_dir(machine=True) == tmp_path / "report" / "full" / "machine"
    monkeypatch.setenv("DDZLAB_SCALE_FACTOR", "-1")
    with pytest.raises(ValueError, match="DDZLAB_SCALE_FACTOR"):
        config.scale_factor()


def test_machine_figures_are_git_ignored():
    ignored = (config.ROOT / ".gitignore").read_text().split()
    rel = config.MACHINE_FIGURES_DIR.relative_to(config.ROOT).parts[0] + "/"
    assert rel in ignored and "data/models/" in ignored
