"""Collaborative filtering (gradient-descent matrix factorisation) on synthetic low-rank ratings,
and on MovieLens-100k when the ``recbole`` package (which ships it) is installed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from graphferry.algorithms.cf import collaborative_filtering, predict, ratings_graph, rmse, verify_cf

from conftest import ENGINES, tiny_budget_options


def low_rank_ratings(num_users=150, num_items=80, rank=3, density=0.3, noise=0.1, seed=0):
    """(users, items, ratings): a random rank-``rank`` matrix on 1..5 plus noise, ``density`` observed."""
    rng = np.random.default_rng(seed)
    p, q = rng.random((num_users, rank)), rng.random((num_items, rank))
    full = 1 + 4 * (p @ q.T) / rank
    mask = rng.random((num_users, num_items)) < density
    users, items = np.nonzero(mask)
    ratings = full[users, items] + rng.normal(0, noise, len(users))
    return users, items, ratings, num_users, num_items


def split(n, seed=0, test_fraction=0.2):
    return np.random.default_rng(seed).random(n) < test_fraction


def test_low_rank_ratings_are_recovered_well_under_the_mean_baseline():
    users, items, ratings, nu, ni = low_rank_ratings()
    test = split(len(ratings))
    g = ratings_graph(users[~test], items[~test], ratings[~test], num_users=nu, num_items=ni)
    r = collaborative_filtering(g, rank=8, backend="cpu")
    verify_cf(g, r.factors, r.mu)
    baseline = float(np.sqrt(np.mean((ratings[test] - ratings[~test].mean()) ** 2)))
    got = rmse(r, users[test], items[test], ratings[test])
    assert got < 0.5 * baseline, (got, baseline)
    assert r.factors.shape == (nu + ni, 8)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("direction", ["push", "pull"])
def test_every_engine_and_direction_fits_the_same(engine, direction):
    users, items, ratings, nu, ni = low_rank_ratings(60, 40, seed=1)
    g = ratings_graph(users, items, ratings, num_users=nu, num_items=ni)
    want = collaborative_filtering(g, rank=4, iterations=50, backend="cpu")
    r = collaborative_filtering(g, rank=4, iterations=50, direction=direction, **tiny_budget_options(engine))
    verify_cf(g, r.factors, r.mu)
    # float sums in another order: the same descent up to rounding
    assert np.allclose(r.factors, want.factors, atol=1e-3)
    assert np.allclose(predict(r, users, items), predict(want, users, items), atol=1e-3)


def test_unweighted_graphs_and_bad_ranks_are_refused():
    from graphferry import Graph

    with pytest.raises(ValueError, match="weighted"):
        collaborative_filtering(Graph.from_edges([0], [1], n=2, directed=False), backend="cpu")
    g = ratings_graph([0], [0], [3.0])
    with pytest.raises(ValueError, match="rank"):
        collaborative_filtering(g, rank=0, backend="cpu")


def movielens_100k() -> Path | None:
    """The ml-100k ratings file inside an installed recbole package (found without importing recbole,
    which needs torch)."""
    spec = importlib.util.find_spec("recbole")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "dataset_example" / "ml-100k" / "ml-100k.inter"
    return path if path.exists() else None


def test_movielens_100k_rmse():
    path = movielens_100k()
    if path is None:
        pytest.skip("recbole (which ships MovieLens-100k) is not installed")
    rows = np.loadtxt(path, skiprows=1, delimiter="\t")
    _, users = np.unique(rows[:, 0], return_inverse=True)
    _, items = np.unique(rows[:, 1], return_inverse=True)
    ratings = rows[:, 2]
    test = split(len(ratings))
    g = ratings_graph(users[~test], items[~test], ratings[~test], num_users=users.max() + 1,
                      num_items=items.max() + 1)
    r = collaborative_filtering(g, backend="cpu")
    baseline = float(np.sqrt(np.mean((ratings[test] - ratings[~test].mean()) ** 2)))
    got = rmse(r, users[test], items[test], ratings[test])
    assert got < 0.96 and baseline > 1.1, (got, baseline)
