"""A suite with a judge of known sensitivity/specificity, for the coverage tests and benchmark.

Agents with per-interaction success rates theta_g; tasks of fixed length (mixed 1..max_len),
each attempted ``attempts`` times; truths iid Bernoulli(theta_g); the judge says 1 with
probability se when the truth is 1, 1 - sp when it is 0; ``n_labels`` interactions drawn
uniformly at random get their human label. Targets are the true (human) quantities.

``fooled``: the share of tasks on which the judge fails as a whole (it calls every interaction of
every attempt at the task correct, whatever the truth): judge errors correlated within a task and
its conversations, as a judge that cannot grade one hard task. The truths are unchanged, so the
targets are too; the judge's marginal sensitivity and specificity become se (1 - f) + f and
sp (1 - f). With ``fooled_theta`` those tasks are also hard (per-interaction rate
``fooled_theta``): the judge fails exactly where the agent does, the worst case for the
correction's compounding, and the targets follow the tasks' rates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Suite:
    conversation: np.ndarray   # per interaction
    judge: np.ndarray
    human: np.ndarray          # NaN where unlabelled
    truth: np.ndarray
    group: np.ndarray          # per conversation
    task: np.ndarray
    length: np.ndarray
    true_rate: np.ndarray      # per agent: interaction-weighted mean of its tasks' rates
    true_share: np.ndarray     # per agent: E[theta^m] over its tasks' lengths
    true_pass_pow: np.ndarray  # per agent: mean over its tasks of (theta^m_t)^k
    true_pass_at: np.ndarray


def make_suite(rng: np.random.Generator, *, thetas=(0.85, 0.7), se=0.9, sp=0.75,
               tasks_per_agent=40, attempts=3, max_len=5, n_labels=200, k=2,
               fooled=0.0, fooled_theta=None) -> Suite:
    m_ts = [rng.integers(1, max_len + 1, size=tasks_per_agent) for _ in thetas]
    n_tasks = tasks_per_agent * len(thetas)
    bad_task = np.zeros(n_tasks, bool)
    if fooled:
        bad_task = np.random.default_rng(rng.integers(2**32)).random(n_tasks) < fooled
    groups, tasks, lengths, theta_t = [], [], [], []
    true_rate, true_share, pw, at = [], [], [], []
    t_id = 0
    for g, (th, m_t) in enumerate(zip(thetas, m_ts)):
        bad = bad_task[t_id:t_id + tasks_per_agent]
        th_t = np.where(bad, th if fooled_theta is None else fooled_theta, th)
        p_t = th_t ** m_t
        true_rate.append(float(np.sum(th_t * m_t) / np.sum(m_t)))
        true_share.append(p_t.mean())
        pw.append(np.mean(p_t ** k))
        at.append(np.mean(1 - (1 - p_t) ** k))
        for m, tt in zip(m_t, th_t):
            theta_t.append(tt)
            for _ in range(attempts):
                groups.append(g)
                tasks.append(t_id)
                lengths.append(m)
            t_id += 1
    group, task, length = map(np.array, (groups, tasks, lengths))
    conv = np.repeat(np.arange(group.size), length)
    theta_i = np.asarray(theta_t)[task[conv]]
    truth = (rng.random(conv.size) < theta_i).astype(float)
    judge = np.where(truth == 1, rng.random(conv.size) < se, rng.random(conv.size) > sp)
    judge = judge.astype(float)
    if fooled:
        judge = np.where(bad_task[task[conv]], 1.0, judge)
    human = np.full(conv.size, np.nan)
    pick = rng.choice(conv.size, size=min(n_labels, conv.size), replace=False)
    human[pick] = truth[pick]
    return Suite(conv, judge, human, truth, group, task, length, np.array(true_rate),
                 np.array(true_share), np.array(pw), np.array(at))
