"""Comparing agents: paired differences on shared tasks, ranking, and multiple comparisons.

Data are complete conversations (every interaction judged) as aligned arrays ``agent``, ``task``
and ``success`` (fully correct or not). A *task* is (agent, task_id); two agents **share** a task
when both attempted the same ``task_id``. A conversation without a ``task_id`` is its own
one-attempt task, shared with nobody.

Per agent and a set of tasks, with p_t the task's success rate:

- ``success``: task-level success, the mean over tasks of p_t;
- ``pass@k``: mean over tasks of 1 - (1 - p_t)^k;   ``pass^k``: mean over tasks of p_t^k;

each for two **scopes**: ``suite tasks`` (the tasks in the data, a finite set) and ``new task``
(a task drawn from the population the suite's tasks sample). Pairing on shared tasks removes the
between-task variation both agents have in common (both find the same tasks hard), which an
unpaired comparison counts as noise.

Methods (the result says which was used):

- **Bayesian, paired model** (:func:`paired_bayes`). *Suite tasks*: each agent's task rates get
  the population prior Beta(mu kappa, (1 - mu) kappa) fitted to that agent's tasks (the pooled
  default: the mode's fit, or :func:`agenteval.statistical.difficulty.hyperposterior_draws`),
  with the uncertainty of (mu, kappa) carried into every draw (a plug-in prior makes the mean
  over tasks too certain: measured 84% coverage for a nominal 95%), so per-task posteriors are
  Beta(mu kappa + c_t, (1 - mu) kappa + n_t - c_t). Under the flat prior by name
  (``BayesianMode(method="conjugate")``) every task gets Beta(a, b) instead, as in that mode's
  suite headline: with Beta(1, 1) and n attempts each task's posterior mean is (c + 1)/(n + 2),
  so every difference of success is shrunk toward 0 by the factor n / (n + 2) (2/3 at 4
  attempts; measured bias -0.034 for success, -0.058 for pass^3, coverage 0.87 and 0.78).
  The draws of each difference are the mean over shared tasks.
  *New task*: the one new-task estimator (:mod:`agenteval.statistical.new_task`): the Bayesian
  bootstrap over shared tasks (Rubin 1981, "The Bayesian bootstrap", Ann. Statist. 9) of the
  per-task unbiased estimates, Dirichlet(1, ..., 1) task weights **shared by both agents**
  (:func:`bayesian_bootstrap`), the same values the suite rows show for each agent. Per-task
  posteriors with independent priors would ignore that both agents find the same tasks hard and
  give back most of what pairing gains (measured: 8% narrower than unpaired instead of 20%).
  :func:`paired_from_draws` and :func:`difference_from_draws` take any posterior draws (per-task
  rates, or population quantities), so a joint hierarchical posterior plugs in unchanged.
- **Frequentist, paired**: a bootstrap over shared tasks (resampling tasks, with both agents'
  attempts at a task kept together: the cluster bootstrap of Davison & Hinkley 1997, section 3.8)
  of the mean per-task difference of the unbiased estimators (c/n; Chen et al. 2021 for pass@k;
  tau-bench for pass^k), with the percentile interval (Efron & Tibshirani 1993, ch. 13) and the
  percentile-inversion p-value. With one attempt per task by each agent, the success difference
  uses Newcombe's interval for paired proportions (:func:`newcombe_paired`) and the exact
  McNemar test.
- **Independent** (agents with no shared task): where tasks repeat, the same task-level analyses
  with each agent on its own tasks (:func:`unpaired_bayes`, :func:`unpaired_bootstrap`), so
  attempts stay clustered within tasks (pooling them as independent conversations understates the
  uncertainty by the design effect 1 + (m - 1) icc); with one conversation per task, the run's mode
  compares the pooled share of fully correct conversations (exact posterior P(A > B), or
  Newcombe's square-and-add interval with a two-proportion z-test).

Frequentist p-values are adjusted for the number of pairs by Holm (default) or
Benjamini-Hochberg (:func:`adjust_pvalues`), within each quantity's family of pairs. Intervals are
per comparison (not simultaneous).

The package, one job per file: ``types`` (the result dataclasses), ``common`` (quantities,
seeds, checks), ``draws`` (differences from posterior draws; one agent's mean over its tasks),
``bayes`` (the paired and unpaired Bayesian models), ``bootstrap`` (the frequentist bootstrap),
``proportions`` (Newcombe, McNemar), ``multiplicity`` (Holm, BH), ``ranking``, ``grouping``
(conversations -> per-task counts), ``agents`` (every pair, the table) and ``corrected`` (the
same on judge-corrected outcomes, when human labels calibrate the judge:
:func:`compare_corrected`).
"""

from __future__ import annotations

from agenteval.statistical.compare.agents import compare_agents
from agenteval.statistical.compare.bayes import bayesian_bootstrap, paired_bayes, unpaired_bayes
from agenteval.statistical.compare.bootstrap import paired_bootstrap, unpaired_bootstrap
from agenteval.statistical.compare.corrected import compare_corrected
from agenteval.statistical.compare.draws import difference_from_draws, paired_from_draws, suite_mean_draws
from agenteval.statistical.compare.grouping import is_bayes
from agenteval.statistical.compare.multiplicity import adjust_pvalues
from agenteval.statistical.compare.proportions import mcnemar_exact, newcombe_paired
from agenteval.statistical.compare.ranking import rank_from_draws
from agenteval.statistical.compare.types import Comparison, ComparisonTable, Difference, Ranking

#: The name ``agenteval.comparisons`` imported before the split (kept for it).
_is_bayes = is_bayes

__all__ = [
    "Comparison",
    "ComparisonTable",
    "Difference",
    "Ranking",
    "adjust_pvalues",
    "bayesian_bootstrap",
    "compare_agents",
    "compare_corrected",
    "difference_from_draws",
    "mcnemar_exact",
    "newcombe_paired",
    "paired_bayes",
    "paired_bootstrap",
    "paired_from_draws",
    "rank_from_draws",
    "suite_mean_draws",
    "unpaired_bayes",
    "unpaired_bootstrap",
    "is_bayes",
]
