"""Notebook widgets: the prior-sensitivity explorer.

    from agenteval.present.widgets import prior_explorer
    prior_explorer(results)            # sliders for a, b and k; a menu of the summary's groups
    prior_explorer(n=10, c=8, k=3)     # any counts

Moving a slider recomputes the exact conjugate posterior (``BayesianMode.estimate``) and redraws
:func:`agenteval.plots.sensitivity.plot_prior_sensitivity`; nothing is sampled.
"""

from __future__ import annotations

import html
import io
from typing import Any

from agenteval._util.sanitize import terminal
from agenteval.errors import ConfigError

__all__ = ["PriorExplorer", "prior_explorer"]


def _groups(results: Any) -> dict[str, tuple[int, int]]:
    """(n, c) per summary group: complete conversations and fully correct ones."""
    return {row.group: (row.complete, row.fully_correct) for row in results.summary().rows}


def _headlines(results: Any) -> dict[str, str]:
    """Per summary group, the run's headline as the summary states it (what the pooled what-if
    below it is not), e.g. 'run's headline (mean over 9 tasks, prior Beta(1, 1)): ...'."""
    from agenteval.present.text import format_interval

    k = results.k
    out = {}
    for r in results.summary().rows:
        basis = (f"mean over {r.tasks} tasks" if r.headline == "tasks"
                 else "pooled plug-in of the share")
        share = ("share p post-stratified by length" if r.rate_method != "complete cases"
                 else "share p")
        out[r.group] = (f"run's headline ({basis}): pass@{k} "
                        f"{format_interval(r.pass_at_k, r.pass_at_k_low, r.pass_at_k_high)}, "
                        f"pass^{k} "
                        f"{format_interval(r.pass_pow_k, r.pass_pow_k_low, r.pass_pow_k_high)}; "
                        f"{share} {format_interval(r.rate, r.rate_low, r.rate_high)}")
    return out


class PriorExplorer:
    """Sliders for the Beta(a, b) prior and k over the counts (n, c) of one group.

    ``widget`` is the ipywidgets box to display; ``estimate`` holds the numbers of the last
    redraw (a ``PassEstimate`` at the chosen k), so code and tests can read what is shown.
    """

    def __init__(self, groups: dict[str, tuple[int, int]], *, a: float = 1.0, b: float = 1.0,
                 k: int = 3, k_max: int = 10, ci_level: float = 0.95,
                 colours: dict[str, str] | None = None,
                 headlines: dict[str, str] | None = None) -> None:
        import ipywidgets as w

        if not groups:
            raise ConfigError("prior_explorer needs at least one group of counts")
        self.groups = groups
        self.colours = colours or {}
        self.headlines = headlines or {}
        self.k_max = max(int(k_max), int(k))
        self.ci_level = ci_level
        self.estimate: Any = None
        self.renders = 0
        slider = dict(continuous_update=False, readout_format=".2f",
                      style={"description_width": "initial"})
        self.a = w.FloatLogSlider(value=a, base=10, min=-1, max=2, step=0.05,
                                  description="prior a", **slider)
        self.b = w.FloatLogSlider(value=b, base=10, min=-1, max=2, step=0.05,
                                  description="prior b", **slider)
        self.k = w.IntSlider(value=k, min=1, max=self.k_max, description="k",
                             continuous_update=False)
        self.group = w.Dropdown(options=list(groups), value=next(iter(groups)), description="group")
        self.numbers = w.HTML()
        self.output = w.Output()
        controls = w.HBox([self.group, self.a, self.b, self.k])
        self.widget = w.VBox([controls, self.numbers, self.output])
        for control in (self.a, self.b, self.k, self.group):
            control.observe(self._on_change, names="value")
        self.render()

    def _on_change(self, _change: Any) -> None:
        self.render()

    def render(self) -> None:
        """Recompute at the current slider values and redraw."""
        import matplotlib.pyplot as plt
        from IPython.display import Image, display

        from agenteval.plots.sensitivity import plot_prior_sensitivity
        from agenteval.statistical.modes import BayesianMode

        n, c = self.groups[self.group.value]
        a, b, k = float(self.a.value), float(self.b.value), int(self.k.value)
        mode = BayesianMode(ci_level=self.ci_level, beta_prior_a=a, beta_prior_b=b)
        self.estimate = est = mode.estimate(n, c, k)
        headline = self.headlines.get(self.group.value)
        self.numbers.value = (
            f"<b>{html.escape(terminal(self.group.value))}</b>: {c} of {n} fully correct (complete conversations); prior "
            f"Beta({a:.2f}, {b:.2f}) &rarr; posterior Beta({a + c:.2f}, {b + n - c:.2f}). "
            f"p = {est.rate:.3f} [{est.rate_low:.3f}, {est.rate_high:.3f}]; "
            f"pooled pass@{k} = {est.pass_at_k:.3f} [{est.pass_at_k_low:.3f}, "
            f"{est.pass_at_k_high:.3f}]; pooled pass^{k} = {est.pass_pow_k:.3f} "
            f"[{est.pass_pow_k_low:.3f}, {est.pass_pow_k_high:.3f}] (pooled: one p for every "
            f"conversation, as if all tasks were equally hard; {self.ci_level:.0%} equal-tailed "
            "intervals)" + (f"<br>{headline}" if headline else "")
        )
        fig = plot_prior_sensitivity(n, c, a=a, b=b, k=k, k_max=self.k_max, ci_level=self.ci_level,
                                     colour=self.colours.get(self.group.value))
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=110)
        plt.close(fig)  # shown once, as the PNG below, whatever the matplotlib backend
        if self.renders:  # the first render fills an empty output
            self.output.clear_output(wait=True)
        with self.output:
            display(Image(data=buffer.getvalue(), format="png"))
        self.renders += 1

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)


def prior_explorer(results: Any = None, *, n: int | None = None, c: int | None = None,
                   a: float = 1.0, b: float = 1.0, k: int | None = None, k_max: int = 10,
                   ci_level: float = 0.95) -> PriorExplorer:
    """An explorer over an ``AgenticResults`` (one entry per summary group) or over counts n, c."""
    if results is not None:
        if n is not None or c is not None:
            raise ConfigError("give results or n and c, not both")
        groups = _groups(results)
        k = results.k if k is None else k
        colours = results.colours() if hasattr(results, "colours") else None
        headlines = _headlines(results)
    else:
        if n is None or c is None:
            raise ConfigError("prior_explorer needs results, or both n and c")
        from agenteval.statistical.estimators import pass_at_k

        pass_at_k(n, c, 1)  # validates the counts (integers, 0 <= c <= n) with its messages
        groups = {f"{c} of {n}": (int(n), int(c))}
        colours = headlines = None
    return PriorExplorer(groups, a=a, b=b, k=3 if k is None else k, k_max=k_max,
                         ci_level=ci_level, colours=colours, headlines=headlines)
