"""The figures' kernel density: the binned estimate against scipy's gaussian_kde."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import gaussian_kde

from agenteval.plots.bayes import _GRID, _density


@pytest.mark.parametrize("a, b", [(8, 3), (1, 30), (200, 50), (0.5, 0.5)])
def test_binned_density_matches_scipy_reflected(a: float, b: float) -> None:
    x = np.random.default_rng(1).beta(a, b, 4000)
    kde = gaussian_kde(x)
    want = kde(_GRID) + kde(-_GRID) + kde(2 - _GRID)      # reflected at 0 and 1
    got = _density(x)
    assert np.max(np.abs(got - want)) < 0.01 * want.max()
    assert np.trapezoid(got, _GRID) == pytest.approx(1.0, abs=2e-3)


def test_unreflected_density_on_another_grid() -> None:
    grid = np.linspace(-2, 6, 401)
    x = np.random.default_rng(2).normal(2, 0.7, 4000)
    want = gaussian_kde(x)(grid)
    assert np.max(np.abs(_density(x, grid, reflect=False) - want)) < 0.01 * want.max()
    assert not _density(np.array([0.3, 0.3]), grid).any()   # no spread: nothing to draw
