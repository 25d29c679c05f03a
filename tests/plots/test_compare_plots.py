"""Comparison figures: each renders from computed results and exports valid, non-empty files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agenteval import Agentic, BayesianMode, FrequentistMode
from agenteval.errors import ConfigError
from agenteval.plots import export, plot_difference, plot_pairwise, plot_power_curve
from agenteval.statistical.compare import compare_agents
from agenteval.statistical.plan import power_curve
from tests.conftest import DEMO

MAGIC = {"png": b"\x89PNG", "pdf": b"%PDF", "svg": b"<?xml"}


def _check(paths: list[Path]) -> None:
    for path in paths:
        data = path.read_bytes()
        assert len(data) > 2000 and data.startswith(MAGIC[path.suffix[1:]]), path


@pytest.mark.parametrize("mode", [BayesianMode(mc_samples=2000), FrequentistMode()])
def test_difference_density_on_the_demo(tmp_path: Path, mode: object) -> None:
    import matplotlib.pyplot as plt

    results = Agentic.run(str(DEMO), None, 3, statistical_mode=mode)
    (cmp,) = results.comparison_table().comparisons
    fig = plot_difference(cmp, scope="new task")
    ax = fig.axes[0]
    assert len(ax.lines) == 4  # three quantities and the zero line
    assert "minus" in ax.get_xlabel()
    _check(export(fig, tmp_path / "difference"))
    plt.close(fig)
    with pytest.raises(ConfigError):
        plot_difference(cmp, scope="no such scope")


def test_pairwise_matrix_and_power_curve(tmp_path: Path) -> None:
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(0)
    agent, task, success = [], [], []
    for name, p in [("a", 0.3), ("b", 0.5), ("c", 0.7)]:
        for t in range(15):
            for _ in range(2):
                agent.append(name)
                task.append(f"t{t}")
                success.append(rng.random() < p)
    table = compare_agents(agent, task, success, k=1, mode=BayesianMode(mc_samples=1000))
    fig = plot_pairwise(table.ranking)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert len(texts) == 6  # every off-diagonal cell is annotated
    _check(export(fig, tmp_path / "pairwise", ("png", "svg")))
    plt.close(fig)
    curve = power_curve([20, 60, 100], simulate=50, rate_a=0.7, rate_b=0.6, icc=0.3, attempts=4)
    fig = plot_power_curve(curve)
    assert fig.axes[0].get_ylabel().startswith("power")
    _check(export(fig, tmp_path / "power", ("png", "pdf")))
    plt.close(fig)
