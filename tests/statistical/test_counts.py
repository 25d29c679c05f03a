"""The table of counts: derived tables against plain-Python enumeration of the same columns."""

from __future__ import annotations

import random
from collections import defaultdict

import numpy as np
import pytest

from agenteval.errors import ConfigError
from agenteval.statistical.counts import SOURCES, build_counts


def _columns(seed: int, size: int = 300) -> dict:
    rng = random.Random(seed)
    agents = [f"agent-{i}" for i in range(3)]
    rows = defaultdict(list)
    for _ in range(size):
        length = rng.randint(1, 5)
        errors = rng.choice([0, 0, 0, 1]) if length > 1 else 0
        n = length - errors
        c = rng.randint(0, n)
        fully = (c == n) if errors == 0 else (False if c < n else None)
        rows["agent"].append(rng.choice(agents))
        rows["task"].append(rng.choice([None, "t1", "t2", "t3", "t4"]))
        rows["n"].append(n)
        rows["c"].append(c)
        rows["length"].append(length)
        rows["judge_errors"].append(errors)
        rows["fully"].append(fully)
        rows["source"].append(rng.choice(SOURCES))
    return dict(rows)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tasks_match_enumeration(seed: int) -> None:
    cols = _columns(seed)
    t = build_counts(**cols)
    expected: dict[tuple[str, str], list[int]] = {}
    for a, task, errors, fully in zip(cols["agent"], cols["task"], cols["judge_errors"],
                                      cols["fully"]):
        if task is None:
            continue
        entry = expected.setdefault((a, task), [0, 0])
        if errors == 0:
            entry[0] += 1
            entry[1] += fully is True
    assert t.tasks.keys == tuple(expected)          # first appearance, as the data ran
    assert t.tasks.n.tolist() == [v[0] for v in expected.values()]
    assert t.tasks.c.tolist() == [v[1] for v in expected.values()]
    assert [t.agents[a] for a in t.tasks.agent] == [a for a, _ in expected]


@pytest.mark.parametrize("seed", [0, 3])
def test_strata_match_enumeration(seed: int) -> None:
    cols = _columns(seed)
    t = build_counts(**cols)
    for name, _, mask in t.groups():
        per: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])
        for a, length, errors, fully in zip(cols["agent"], cols["length"], cols["judge_errors"],
                                            cols["fully"]):
            if name != "all" and a != name:
                continue
            per[length][0] += 1
            per[length][1] += errors == 0
            per[length][2] += fully is True
        s = t.strata(mask)
        assert s.lengths.tolist() == sorted(per)
        assert s.conversations.tolist() == [per[L][0] for L in sorted(per)]
        assert s.complete.tolist() == [per[L][1] for L in sorted(per)]
        assert s.fully_correct.tolist() == [per[L][2] for L in sorted(per)]


def test_groups_attempts_and_complete_cases() -> None:
    t = build_counts(agent=["a", "b", "a", "a"], task=["x", "x", "x", None], n=[2, 1, 1, 3],
                     c=[2, 0, 1, 3], judge_errors=[0, 0, 1, 0])
    assert [g[0] for g in t.groups()] == ["all", "a", "b"]
    assert t.fully.tolist() == [1, 0, -1, 1]      # c == n but a judge error: unknown
    assert sorted(t.attempts_per_task(t.agent == 0).tolist()) == [2]
    agents, tasks, success = t.complete_cases()
    assert agents == ["a", "b", "a"] and tasks == ["x", "x", None]
    assert success.tolist() == [True, False, True]
    one = build_counts(agent=["a"], task=[None], n=[1], c=[1])
    assert [g[0] for g in one.groups()] == ["all"] and one.tasks.size == 0


def test_frozen_and_read_only() -> None:
    t = build_counts(agent=["a"], task=["x"], n=[2], c=[1])
    with pytest.raises(Exception):
        t.n = np.array([3])  # type: ignore[misc]
    with pytest.raises(ValueError):
        t.n[0] = 5


@pytest.mark.parametrize("bad", [dict(c=[3]), dict(n=[1, 2]), dict(source=["judge"]),
                                 dict(fully=[2])])
def test_bad_columns_raise(bad: dict) -> None:
    cols = dict(agent=["a"], task=[None], n=[2], c=[1])
    with pytest.raises(ConfigError):
        build_counts(**{**cols, **bad})
