"""The peer policy of tests/peers.py: a missing peer fails in CI and is skipped elsewhere."""
import pytest

from peers import peers_required, require_peer


@pytest.mark.parametrize("env,required", [({"CI": "true"}, True), ({"CI": "1"}, True),
                                          ({"CI": "false"}, False), ({}, False),
                                          ({"DDZLAB_REQUIRE_PEERS": "1"}, True)])
def test_missing_peer_fails_in_ci_and_skips_elsewhere(monkeypatch, env, required):
    for name in ("CI", "DDZLAB_REQUIRE_PEERS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert peers_required() == required
    expected = pytest.fail.Exception if required else pytest.skip.Exception
    with pytest.raises(expected, match="no_such_peer_module.*pip install no-such-peer"):
        require_peer("no_such_peer_module", "pip install no-such-peer")
    assert require_peer("numpy", "pip install numpy").__name__ == "numpy"


def test_every_install_route_installs_the_same_douzero():
    """make setup (pip --no-deps) and the conda route (environment.yml pip section) both
    install douzero, at the version the differential tests and docs/definitions.md#peer-figures name."""
    import re
    from pathlib import Path

    from peers import DOUZERO_INSTALL
    root = Path(__file__).resolve().parents[2]
    make = re.findall(r"--no-deps (douzero==[\d.]+)", (root / "Makefile").read_text())
    conda = re.findall(r"^\s+- (douzero==[\d.]+)\s*$", (root / "environment.yml").read_text(), re.M)
    assert make == conda == [DOUZERO_INSTALL.split()[-1]] == ["douzero==1.1.0"]
