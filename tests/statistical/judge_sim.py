"""A suite with a judge of known sensitivity/specificity, for the coverage tests and benchmark.

Agents with per-interaction success rates theta_g; tasks of fixed length (mixed 1..max_len),
each attempted ``attempts`` times; truths iid Bernoulli(theta_g); the judge says 1 with
probability se when the truth is 1, 1 - sp when it is 0; ``n_labels`` interactions drawn
uniformly at random get their human label. Targets are the true (human) quantities.
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
    true_rate: np.ndarray      # per agent: theta_g
    true_share: np.ndarray     # per agent: E[theta^m] over its tasks' lengths
    true_pass_pow: np.ndarray  # per agent: mean over its tasks of (theta^m_t)^k
    true_pass_at: np.ndarray


def make_suite(rng: np.random.Generator, *, thetas=(0.85, 0.7), se=0.9, sp=0.75,
               tasks_per_agent=40, attempts=3, max_len=5, n_labels=200, k=2) -> Suite:
    groups, tasks, lengths = [], [], []
    t_id = 0
    true_share, pw, at = [], [], []
    for g, th in enumerate(thetas):
        m_t = rng.integers(1, max_len + 1, size=tasks_per_agent)
        p_t = th ** m_t
        true_share.append(p_t.mean())
        pw.append(np.mean(p_t ** k))
        at.append(np.mean(1 - (1 - p_t) ** k))
        for m in m_t:
            for _ in range(attempts):
                groups.append(g)
                tasks.append(t_id)
                lengths.append(m)
            t_id += 1
    group, task, length = map(np.array, (groups, tasks, lengths))
    conv = np.repeat(np.arange(group.size), length)
    theta_i = np.asarray(thetas)[group[conv]]
    truth = (rng.random(conv.size) < theta_i).astype(float)
    judge = np.where(truth == 1, rng.random(conv.size) < se, rng.random(conv.size) > sp)
    judge = judge.astype(float)
    human = np.full(conv.size, np.nan)
    pick = rng.choice(conv.size, size=min(n_labels, conv.size), replace=False)
    human[pick] = truth[pick]
    return Suite(conv, judge, human, truth, group, task, length, np.asarray(thetas),
                 np.array(true_share), np.array(pw), np.array(at))
