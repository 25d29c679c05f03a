"""The collector helpers used around loading and scoring leave the collector as they found it."""

from __future__ import annotations

import gc

import pytest

from agenteval._util.gc import collector_paused, existing_objects_frozen


def test_paused_collector_comes_back_on_even_after_an_error():
    assert gc.isenabled()
    with pytest.raises(ValueError), collector_paused():
        assert not gc.isenabled()
        raise ValueError("boom")
    assert gc.isenabled()


def test_a_caller_who_turned_the_collector_off_keeps_it_off():
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_frozen_objects_are_handed_back():
    assert gc.get_freeze_count() == 0
    with existing_objects_frozen():
        assert gc.get_freeze_count() > 0
        garbage = []
        garbage.append(garbage)  # a cycle made inside is still collected
        del garbage
        assert gc.collect() >= 1
    assert gc.get_freeze_count() == 0


def test_someone_elses_freeze_is_left_alone():
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        with existing_objects_frozen():
            pass
        # neither unfrozen (0) nor frozen again (more): frozen objects that die meanwhile
        # (other threads of a long test session) may only lower the count
        assert 0 < gc.get_freeze_count() <= before
    finally:
        gc.unfreeze()


def test_load_datasets_runs_with_the_collector_paused_and_restores_it():
    """Loading builds no cycles: the collector is off while it runs (a Retriever sees it off),
    on again afterwards, also after a bad record."""
    from agenteval.core import load_datasets
    from agenteval.core.base import Retriever
    from agenteval.errors import DataError

    seen = []

    class Probe(Retriever):
        def load_dataset(self):
            seen.append(gc.isenabled())
            return [{"session_id": "s", "assistant_id": "a",
                     "conversation": [{"qa_id": "q", "query": "?", "assistant": "8"}]}]

    assert len(load_datasets(Probe)) == 1 and seen == [False] and gc.isenabled()
    with pytest.raises(DataError):
        load_datasets([{"session_id": "s"}])
    assert gc.isenabled()
