"""Saved Q-tables played from their sparse form (`SparseTables`) read as the dense ones."""
import numpy as np
import pytest

from ddzlab.agents.qlearning import QLearningAgent, QTables, SparseTables, load_tables, tables
from ddzlab.deals import generate_deals
from ddzlab.qtraining import TrainConfig, train
from conftest import side_by_side


def _trained(tmp_path, seed=4):
    cfg = TrainConfig(games=40, seed=seed, opponents="split_random", tie="prior", q_init=-40.0,
                      rewards="outcome", rule="mc", gamma=1.0, alpha=0.01, average=True,
                      caution=40.0, min_visits=2, epsilon=0.05)
    dense = train(cfg, progress=False).tables
    path = dense.save(tmp_path / f"t{seed}.npz")
    return dense, path


def test_sparse_rows_equal_dense_rows(tmp_path):
    dense, path = _trained(tmp_path)
    sparse = load_tables(path)
    assert isinstance(sparse, SparseTables)
    rng = np.random.default_rng(0)
    for which in (0, 1):
        touched = np.flatnonzero(dense.visits(which).any(axis=1))
        assert len(touched) > 0
        n = dense.table(which).shape[0]
        for state in [*touched.tolist(), *rng.integers(n, size=200).tolist(), 0, n - 1]:
            np.testing.assert_array_equal(sparse.table(which)[state], dense.table(which)[state])
            np.testing.assert_array_equal(sparse.visits(which)[state], dense.visits(which)[state])
    assert sparse.coverage() == dense.coverage()
    assert sparse.meta == QTables.load(path).meta


def test_agent_plays_the_same_from_sparse_and_dense(tmp_path):
    dense, path = _trained(tmp_path, seed=5)
    a, b = QLearningAgent(path=path), QLearningAgent(dense)
    assert isinstance(a.tables, SparseTables) and (a.min_visits, a.caution) == (2, 40.0)
    pairs = side_by_side(a, b, generate_deals(12, seed=3))
    assert all(m == o for m, o in pairs) and len(pairs) > 12 * 10


def test_cache_keeps_the_latest_tables(tmp_path, monkeypatch):
    monkeypatch.setattr(tables, "CACHE_TABLES", 2)
    tables._TABLE_CACHE.clear()
    paths = [_trained(tmp_path, seed=s)[1] for s in (1, 2, 3)]
    first = load_tables(paths[0])
    assert load_tables(paths[0]) is first          # cached
    load_tables(paths[1])
    load_tables(paths[0])                          # used again: now the newest
    load_tables(paths[2])                          # evicts paths[1], the oldest
    assert len(tables._TABLE_CACHE) == 2
    assert load_tables(paths[0]) is first
    assert str(paths[1].resolve()) not in {k[0] for k in tables._TABLE_CACHE}


def test_sparse_tables_are_read_only(tmp_path):
    _, path = _trained(tmp_path, seed=6)
    t = load_tables(path)
    row = t.table(0)[int(t.table(0).states[0])]
    with pytest.raises(ValueError, match="read-only"):
        row[0] = 1.0
