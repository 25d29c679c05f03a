"""The prior-sensitivity explorer and the figures it and the teaching notebooks draw."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from scipy import integrate, stats

from agenteval import Agentic, BayesianMode
from agenteval.errors import ConfigError
from tests.conftest import DEMO

pytest.importorskip("ipywidgets")


@pytest.fixture(scope="module")
def results() -> Any:
    return Agentic.run(str(DEMO), k=3, statistical_mode=BayesianMode())


def _pass_pow(a: float, b: float, k: int) -> float:
    value, _ = integrate.quad(lambda p: p ** k * stats.beta(a, b).pdf(p), 0, 1)
    return value


def test_sliders_recompute_the_posterior(results: Any) -> None:
    import matplotlib.pyplot as plt

    from agenteval.widgets import prior_explorer

    open_before = set(plt.get_fignums())
    explorer = prior_explorer(results)
    assert explorer.renders == 1 and list(explorer.group.options) == [
        "all", "agent-gpt-small", "agent-planner-v2"]
    assert explorer.estimate.rate == pytest.approx(38 / 75)   # Beta(1 + 37, 1 + 36)
    explorer.a.value = 5.0
    assert explorer.renders == 2
    assert explorer.estimate.rate == pytest.approx((5 + 37) / (5 + 1 + 73))
    explorer.group.value = "agent-gpt-small"                  # 13 of 40
    explorer.b.value = 2.0
    explorer.k.value = 5
    assert explorer.renders == 5
    assert explorer.estimate.pass_pow_k == pytest.approx(_pass_pow(5 + 13, 2 + 27, 5), rel=1e-9)
    lo = stats.beta(18, 29).ppf(0.025)
    assert explorer.estimate.pass_at_k_low == pytest.approx(1 - (1 - lo) ** 5, rel=1e-9)
    assert "13 of 40 fully correct" in explorer.numbers.value and "pass^5" in explorer.numbers.value
    assert set(plt.get_fignums()) <= open_before  # every redraw closed its figure


def test_explorer_over_plain_counts_and_its_errors() -> None:
    from agenteval.widgets import prior_explorer

    explorer = prior_explorer(n=10, c=8, k=2, a=0.5, b=0.5)
    assert explorer.estimate.rate == pytest.approx(8.5 / 11)
    with pytest.raises(ConfigError, match="needs results, or both n and c"):
        prior_explorer(n=10)
    with pytest.raises(ConfigError):
        prior_explorer(n=3, c=5)


def test_sensitivity_figure_draws_prior_and_posterior() -> None:
    import matplotlib.pyplot as plt

    from agenteval.plots import plot_prior_sensitivity

    fig = plot_prior_sensitivity(10, 8, a=2, b=3, k=3, k_max=6)
    left, right = fig.axes
    prior, post = left.get_lines()[:2]
    x = prior.get_xdata()
    assert np.allclose(prior.get_ydata(), stats.beta(2, 3).pdf(x))
    assert np.allclose(post.get_ydata(), stats.beta(10, 5).pdf(x))
    at, pw = right.get_lines()[:2]
    assert list(at.get_xdata()) == [1, 2, 3, 4, 5, 6]
    assert pw.get_ydata()[2] == pytest.approx(_pass_pow(10, 5, 3), rel=1e-9)
    plt.close(fig)


def test_priors_figure_labels_each_posterior() -> None:
    import matplotlib.pyplot as plt

    from agenteval.plots import plot_priors

    fig = plot_priors(10, 8, {"uniform": (1, 1), "Jeffreys": (0.5, 0.5)})
    labels = [line.get_label() for line in fig.axes[0].get_lines()]
    lo, hi = stats.beta(9, 3).ppf([0.025, 0.975])
    assert labels[0] == f"uniform Beta(1, 1): {9 / 12:.3f} [{lo:.3f}, {hi:.3f}]"
    assert labels[1].startswith("Jeffreys Beta(0.5, 0.5)")
    plt.close(fig)


# --------------------------------------------------------------------------- coverage


def test_wald_by_hand() -> None:
    from agenteval.statistical.coverage import wald_interval

    z = stats.norm.ppf(0.975)
    lo, hi = wald_interval(3, 4)
    half = z * math.sqrt(0.75 * 0.25 / 4)
    assert float(lo) == pytest.approx(0.75 - half) and float(hi) == 1.0  # clipped


def test_exact_coverage_by_enumeration_for_one_case() -> None:
    from agenteval.statistical.coverage import coverage

    n, p, z = 3, 0.9, stats.norm.ppf(0.975)
    expected = 0.0
    for c in range(n + 1):
        ph = c / n
        half = z * math.sqrt(ph * (1 - ph) / n)
        if ph - half <= p <= ph + half:
            expected += math.comb(n, c) * p ** c * (1 - p) ** (n - c)
    assert coverage([n], [p], method="wald")[0, 0] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("method", ["wald", "wilson", "clopper-pearson", "bayes", "jeffreys"])
def test_exact_coverage_agrees_with_a_seeded_simulation(method: str) -> None:
    from agenteval.statistical.coverage import binomial_interval, coverage

    rng = np.random.default_rng(7)
    ns, ps, reps = np.array([5, 17, 60]), np.array([0.1, 0.5, 0.93]), 40_000
    exact = coverage(ns, ps, method=method)
    for i, n in enumerate(ns):
        for j, p in enumerate(ps):
            c = rng.binomial(n, p, size=reps)
            lo, hi = binomial_interval(c, np.full(reps, n), method)
            simulated = np.mean((lo <= p) & (p <= hi))
            se = math.sqrt(max(exact[i, j] * (1 - exact[i, j]), 1e-4) / reps)
            assert abs(simulated - exact[i, j]) < 5 * se


def test_clopper_pearson_never_undercovers_and_wald_fails_at_small_n() -> None:
    from agenteval.statistical.coverage import coverage

    n, p = np.arange(3, 101), np.linspace(0.01, 0.99, 99)
    assert coverage(n, p, method="clopper-pearson").min() >= 0.95 - 1e-12
    wald = coverage(n, p, method="wald")
    assert wald[0].mean() < 0.6 and wald[-1].mean() > 0.9  # Brown, Cai & DasGupta (2001)


def test_coverage_rejects_bad_arguments() -> None:
    from agenteval.statistical.coverage import coverage

    with pytest.raises(ConfigError, match="method must be one of"):
        coverage([5], [0.5], method="agresti")
    with pytest.raises(ConfigError, match="n must hold integers"):
        coverage([0], [0.5], method="wald")
    with pytest.raises(ConfigError, match=r"p must lie in \[0, 1\]"):
        coverage([5], [1.5], method="wald")


def test_coverage_figure_plots_what_it_was_given() -> None:
    import matplotlib.pyplot as plt

    from agenteval.plots import plot_coverage
    from agenteval.statistical.coverage import coverage

    n, p = np.arange(3, 30), np.linspace(0.05, 0.95, 19)
    cov = {m: coverage(n, p, method=m) for m in ("wald", "wilson")}
    fig = plot_coverage(n, p, cov, at=0.9)
    left, right = fig.axes
    assert np.allclose(left.get_lines()[0].get_ydata(), cov["wald"][:, 17])
    assert np.allclose(right.get_lines()[1].get_ydata(), cov["wilson"].mean(axis=1))
    plt.close(fig)
