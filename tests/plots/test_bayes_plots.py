"""Posterior figures: every helper draws from real results and writes valid PDF, SVG and PNG."""

from __future__ import annotations

import pytest

from agenteval import Agentic, BayesianMode
from agenteval.errors import ConfigError
from tests.conftest import DEMO

MAGIC = {"pdf": b"%PDF", "png": b"\x89PNG", "svg": b"<svg"}


@pytest.fixture(scope="module")
def results():
    return Agentic.run(str(DEMO), k=3, statistical_mode=BayesianMode(method="empirical_bayes"))


@pytest.mark.parametrize("name", ["plot_pass_posterior", "plot_forest", "plot_shrinkage",
                                  "plot_prior_posterior"])
def test_figure_exports_in_every_format(results, name: str, tmp_path) -> None:
    import matplotlib.pyplot as plt

    from agenteval import plots

    fig = getattr(plots, name)(results)
    paths = plots.export(fig, tmp_path / name, formats=("pdf", "svg", "png"))
    plt.close(fig)
    for path in paths:
        head = path.read_bytes()[:400]
        assert path.stat().st_size > 2000 and MAGIC[path.suffix[1:]] in head


def test_helpers_draw_into_a_given_axis_and_label_it(results) -> None:
    import matplotlib.pyplot as plt

    from agenteval.plots import plot_forest, plot_pass_posterior

    fig, ax = plt.subplots()
    assert plot_pass_posterior(results, quantity="pass_pow_k", ax=ax) is fig
    assert ax.get_xlabel() == r"$\mathrm{pass}^{3}$ (suite's tasks)" and len(ax.lines) >= 2
    fig2, ax2 = plt.subplots()
    plot_forest(results, ax=ax2)
    labels = [t.get_text() for t in ax2.get_yticklabels()]
    assert "agent-gpt-small (mean of 9 tasks)" in labels and "calc-discount" in labels
    plt.close("all")
    with pytest.raises(ValueError, match="two panels"):
        plot_pass_posterior(results, ax=ax)


def test_conjugate_and_no_task_data() -> None:
    import matplotlib.pyplot as plt

    from agenteval.plots import plot_pass_posterior, plot_prior_posterior, plot_shrinkage

    data = [{"session_id": f"s{i}", "assistant_id": "a", "conversation": [
        {"qa_id": "q", "query": "q?", "assistant": "8" if i % 3 else "9",
         "ground_truth_assistant": "8"}]} for i in range(12)]
    results = Agentic.run(data, k=2, statistical_mode=BayesianMode())
    fig = plot_pass_posterior(results)
    assert "pooled plug-in" in fig.axes[0].get_xlabel()
    plot_prior_posterior(results)
    with pytest.raises(ConfigError, match="repeated tasks"):
        plot_shrinkage(results)
    plt.close("all")


def test_shrinkage_draws_one_collection_per_agent_and_the_tasks_values() -> None:
    """Issue 18.12: three artists per task made the figure superlinear in tasks (500 tasks
    16 s, 4,000 tasks 271 s with its PNG). Now a fixed number of artists per agent holds every
    task's segment, raw rate c_t/n_t (counted here from the data) to its posterior mean."""
    import time

    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.collections import LineCollection

    from agenteval.plots import plot_shrinkage

    rng = np.random.default_rng(3)
    tasks, attempts = 400, 3
    outcome = rng.random((2, tasks, attempts)) < rng.beta(2, 2, (2, tasks, 1))
    data = [{"session_id": f"a{a}-t{t}-{k}", "assistant_id": f"agent{a}", "task_id": f"t{t}",
             "attempt": k + 1, "outcome": float(outcome[a, t, k]),
             "conversation": [{"qa_id": "q", "query": "q", "assistant": "a"}]}
            for a in range(2) for t in range(tasks) for k in range(attempts)]
    results = Agentic.run(data, k=2, statistical_mode=BayesianMode(), progress=False)
    idata = results.to_inference_data()
    start = time.perf_counter()
    fig = plot_shrinkage(results, idata=idata)
    fig.savefig(__import__("io").BytesIO(), format="png", dpi=60)
    seconds = time.perf_counter() - start
    ax = fig.axes[0]
    # a fixed number per agent (+ one legend entry for mu or the prior mean), whatever the tasks
    assert len(ax.lines) + len(ax.collections) <= 4 * 2 + 1
    segments = [seg for c in ax.collections if isinstance(c, LineCollection)
                for seg in c.get_segments()]
    assert len(segments) == 2 * tasks
    raw = np.sort([s[0][1] for s in segments])
    want = np.sort((outcome.sum(axis=2) / attempts).ravel())
    np.testing.assert_allclose(raw, want, atol=1e-12)
    pooled = np.sort(idata.posterior["p_task"].mean(dim=("chain", "draw")).values.ravel())
    np.testing.assert_allclose(np.sort([s[1][1] for s in segments]), pooled, atol=1e-12)
    assert seconds < 10, seconds  # before: about 12 s for 800 tasks on an idle machine
    plt.close(fig)
