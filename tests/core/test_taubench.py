"""tau-bench results files: loaded from content, every tool call kept, pass^k as tau-bench has it.

The files are built here in tau-bench's format (``EnvRunResult.model_dump()`` as its ``run.py``
writes them). The reference pass^k is an independent implementation of the formula in
tau-bench's ``display_metrics``: success = reward within 1e-6 of 1, ``num_trials`` = distinct
trials, ``c`` per task, ``pass^k = mean over tasks of C(c, k) / C(num_trials, k)``.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest

from agenteval import Agentic, BayesianMode
from agenteval.cli import main
from agenteval.core import load_datasets
from agenteval.errors import DataError

TRIALS = 4


def _call(call_id, name, args):
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}


def _trajectory(rng: random.Random, task: int, trial: int, *, unfinished: bool) -> list[dict]:
    """An airline-style trajectory: lookups, parallel calls, a booking after the last text,
    and (when ``unfinished``) a final turn cut off with a call that never got its result."""
    uid = f"user_{task}"
    traj = [
        {"role": "system", "content": "# Airline policy\nYou are an airline agent."},
        {"role": "user", "content": f"Hi, I'm {uid} and I want to cancel reservation R{task}."},
        {"role": "assistant", "content": None, "tool_calls": [
            _call(f"a{task}{trial}", "get_user_details", {"user_id": uid})],
         "function_call": None},
        {"role": "tool", "tool_call_id": f"a{task}{trial}", "name": "get_user_details",
         "content": json.dumps({"user_id": uid, "reservations": [f"R{task}"]})},
        {"role": "assistant", "content": "I found your reservation. Shall I cancel it?"},
        {"role": "user", "content": "Yes, please, and check R9 too."},
        {"role": "assistant", "content": "Cancelling now.", "tool_calls": [
            _call(f"b{task}{trial}", "get_reservation_details", {"reservation_id": f"R{task}"}),
            _call(f"c{task}{trial}", "get_reservation_details", {"reservation_id": "R9"})]},
        {"role": "tool", "tool_call_id": f"c{task}{trial}", "name": "get_reservation_details",
         "content": "Error: reservation not found"},
        {"role": "tool", "tool_call_id": f"b{task}{trial}", "name": "get_reservation_details",
         "content": json.dumps({"reservation_id": f"R{task}", "status": "active"})},
        # announced above, then done with no text after it: the call must not be lost
        {"role": "assistant", "content": None, "tool_calls": [
            _call(f"d{task}{trial}", "cancel_reservation", {"reservation_id": f"R{task}"})]},
        {"role": "tool", "tool_call_id": f"d{task}{trial}", "name": "cancel_reservation",
         "content": json.dumps({"status": "cancelled"})},
    ]
    if rng.random() < 0.5:
        traj += [{"role": "assistant", "content": "Your reservation is cancelled."},
                 {"role": "user", "content": "###STOP###"}]
    if unfinished:  # the run hit its step limit mid-turn: a call without a result, no text
        traj += [{"role": "user", "content": "Can you also refund me?"},
                 {"role": "assistant", "content": None, "tool_calls": [
                     _call(f"e{task}{trial}", "send_certificate", {"user_id": uid, "amount": 50})]}]
    return traj


def build_results(tmp_path: Path, *, tasks: int = 6, seed: int = 0, name: str = "gpt-4o-airline",
                  crash: bool = True) -> tuple[Path, list[dict]]:
    rng = random.Random(seed)
    records = []
    for trial in range(TRIALS):
        for task in range(tasks):
            p = (task + 0.5) / tasks  # tasks of every difficulty
            reward = 1.0 if rng.random() < p else rng.choice([0.0, 0.0, 0.5])
            if rng.random() < 0.15:
                reward = 1.0 - 1e-9  # tau-bench's float rewards: a success within 1e-6
            records.append({"task_id": task, "reward": reward,
                            # no ``actions``: one interaction per user message (with actions
                            # the episode is one interaction, see test_expected_actions_*)
                            "info": {"task": {"user_id": f"user_{task}"}, "source": "user"},
                            "traj": _trajectory(rng, task, trial, unfinished=(task + trial) % 3 == 0),
                            "trial": trial})
    if crash:  # tau-bench's record of a trial that raised: empty trajectory, reward 0
        records[1] = {"task_id": records[1]["task_id"], "reward": 0.0,
                      "info": {"error": "boom", "traceback": "..."}, "traj": [], "trial": 0}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(records, indent=2), encoding="utf-8")
    return path, records


def taubench_pass_hat_k(records: list[dict]) -> dict[int, float]:
    """Independent implementation of tau-bench's pass^k (display_metrics)."""
    def ok(r: float) -> bool:
        return (1 - 1e-6) <= r <= (1 + 1e-6)

    num_trials = len({r["trial"] for r in records})
    c: dict[int, int] = {}
    for r in records:
        c[r["task_id"]] = c.get(r["task_id"], 0) + int(ok(r["reward"]))
    return {k: sum(comb(v, k) / comb(num_trials, k) for v in c.values()) / len(c)
            for k in range(1, num_trials + 1)}


def test_loaded_from_content_with_ids_trials_rewards_and_every_tool_call(tmp_path):
    path, records = build_results(tmp_path)
    datasets = load_datasets(path)  # no option: recognised from the content
    assert len(datasets) == len(records)
    for ds, rec in zip(datasets, records):
        assert ds.session_id == f"gpt-4o-airline/task-{rec['task_id']}-trial-{rec['trial']}"
        assert ds.task_id == str(rec["task_id"]) and ds.attempt == rec["trial"]
        assert ds.outcome == rec["reward"] and ds.assistant_id == "gpt-4o-airline"
        calls_in = [c["function"]["name"] for m in rec["traj"] for c in m.get("tool_calls") or []]
        calls_out = [t.tool_name for b in ds.conversation for t in b.agentic.tools_used]
        assert calls_out == calls_in  # every call, in order
        users = [m for m in rec["traj"] if m["role"] == "user"]
        assert len(ds.conversation) == max(1, len(users))
        assert ds.context == ("# Airline policy\nYou are an airline agent." if rec["traj"] else "")
    first = datasets[0].conversation
    assert first[0].agentic.tools_used[0].result["reservations"] == ["R0"]
    second = first[1].agentic.tools_used
    assert [t.step for t in second] == [1, 1, 2]  # parallel lookups share a step
    assert second[1].result == "Error: reservation not found"
    assert second[2].tool_name == "cancel_reservation" and second[2].result == {"status": "cancelled"}
    unfinished = next(ds for ds, rec in zip(datasets, records)
                      if rec["traj"] and rec["traj"][-1]["role"] == "assistant"
                      and rec["traj"][-1].get("tool_calls"))
    last = unfinished.conversation[-1]
    assert last.assistant == "" and last.agentic.tools_used[0].tool_name == "send_certificate"
    assert last.agentic.tools_used[0].result is None  # never answered
    crashed = datasets[1]
    assert crashed.outcome == 0.0 and crashed.metadata["info"]["error"] == "boom"


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_per_unbiased_pass_pow_k_equals_tau_bench(tmp_path, k):
    path, records = build_results(tmp_path, seed=k)
    reference = taubench_pass_hat_k(records)
    for mode in (None, BayesianMode()):
        results = Agentic.run(str(path), k=k, statistical_mode=mode)
        row = results.summary().rows[0]
        assert row.tasks_with_k == 6
        assert row.unbiased_pass_pow_k == pytest.approx(reference[k], abs=1e-12)
        assert results.summary().judge["calls"] == 0  # rewards decide: no judge asked
        assert all(m.source == "given" and m.total_interactions == 1 for m in results)


def test_success_rule_and_outcome_threshold(tmp_path):
    path, records = build_results(tmp_path, seed=5)
    strict = Agentic.run(str(path), k=1)
    loose = Agentic.run(str(path), k=1, outcome_threshold=0.5)
    for m, rec in zip(strict, records):
        assert m.is_fully_correct is (abs(rec["reward"] - 1) <= 1e-6)
    for m, rec in zip(loose, records):
        assert m.is_fully_correct is (rec["reward"] >= 0.5)
    assert any(rec["reward"] == 0.5 for rec in records)


def test_several_results_files_are_several_agents_and_input_format_forces_the_reader(tmp_path):
    a, ra = build_results(tmp_path, name="agent-a", seed=1)
    b, rb = build_results(tmp_path, name="agent-b", seed=2)
    datasets = load_datasets([a, b])
    assert {ds.assistant_id for ds in datasets} == {"agent-a", "agent-b"}
    odd = tmp_path / "results.txt"  # any name, with the format forced
    odd.write_text(a.read_text())
    assert len(load_datasets(odd, input_format="taubench")) == len(ra)
    with pytest.raises(DataError, match="unsupported file type"):
        load_datasets(odd)


def test_cli_reads_a_results_file_in_one_command(tmp_path, capsys):
    path, records = build_results(tmp_path, seed=3)
    assert main(["run", str(path), "--k", "2", "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary["rows"][0]["unbiased_pass_pow_k"] == pytest.approx(taubench_pass_hat_k(records)[2])
    assert main(["run", str(path), "--k", "4"]) == 0
    table = capsys.readouterr().out
    assert f"pass^4 = {taubench_pass_hat_k(records)[4]:.4f}" in table
    assert "given" in table


@pytest.mark.parametrize("record, field, message", [
    ({"task_id": 1, "trial": 0, "reward": 1.5, "info": {}, "traj": []}, "reward", "[0, 1]"),
    ({"task_id": 1, "trial": -1, "reward": 1.0, "info": {}, "traj": []}, "trial", ">= 0"),
    ({"task_id": 1, "reward": 1.0, "info": {}, "traj": []}, "trial", "missing"),
    ({"task_id": 1, "trial": 0, "reward": 1.0, "info": {}, "traj": [{"role": "user", "content": "q"},
      {"role": "assistant", "tool_calls": [{"id": "x", "type": "function",
                                             "function": {"name": "f", "arguments": "{oops"}}]}]},
     "traj[1].tool_calls[0].function.arguments", "malformed JSON"),
    ({"task_id": 1, "trial": 0, "reward": 1.0, "info": {}, "traj": [], "extra": 1}, None, "unknown field"),
])
def test_bad_records_name_file_line_and_field(tmp_path, record, field, message):
    good = {"task_id": 0, "trial": 0, "reward": 1.0, "info": {},
            "traj": [{"role": "user", "content": "hi"}]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps([good, record], indent=2), encoding="utf-8")
    with pytest.raises(DataError, match=message) as err:
        load_datasets(path, input_format="taubench")
    assert err.value.source == str(path) and err.value.field == field
    starts = [i for i, line in enumerate(path.read_text().splitlines(), start=1) if line == "  {"]
    assert err.value.line == starts[1]  # where the second record starts


def test_cli_bad_file_is_one_line_exit_2(tmp_path, capsys):
    path = tmp_path / "results.json"
    path.write_text(json.dumps([{"task_id": 0, "trial": 0, "reward": 2, "info": {}, "traj": []}]))
    assert main(["run", str(path), "--k", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "field 'reward'" in err


def test_demo_file_is_current_and_matches_tau_bench():
    root = Path(__file__).resolve().parents[2]
    check = subprocess.run([sys.executable, str(root / "data" / "make_harness_demos.py"), "--check"],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    demo = root / "data" / "taubench_demo.json"
    records = json.loads(demo.read_text())
    reference = taubench_pass_hat_k(records)
    for k in (1, 4):
        assert Agentic.run(str(demo), k=k).summary().rows[0].unbiased_pass_pow_k == \
            pytest.approx(reference[k], abs=1e-12)


# --- expected actions -> expected tools ------------------------------------------------------
# Two trials of one airline task written as tau-bench's tool-calling agent logs them: assistant
# messages are litellm ``message.model_dump()`` (``function_call``, one tool call per message),
# ``info`` is ``EnvInfo.model_dump()`` with the task's ``actions`` (a ``respond`` among them)
# and ``reward_info`` (whose ``actions`` omit respond, as ``Env.calculate_reward`` does).

_FLIGHTS = [{"flight_number": "HAT028", "date": "2024-05-21"}]
_ACTIONS = [
    {"name": "get_user_details", "kwargs": {"user_id": "omar_davis_3817"}},
    {"name": "get_reservation_details", "kwargs": {"reservation_id": "JG7FMM"}},
    {"name": "update_reservation_flights", "kwargs": {
        "reservation_id": "JG7FMM", "cabin": "economy", "flights": _FLIGHTS,
        "payment_id": "credit_card_2929732"}},
    {"name": "respond", "kwargs": {"content": "Your reservation JG7FMM is now in economy."}},
]


def _msg(content, call=None):
    """An assistant message as litellm dumps it (one tool call at most, as tau-bench keeps)."""
    return {"content": content, "role": "assistant",
            "tool_calls": None if call is None else [
                {"function": {"arguments": json.dumps(call[2]), "name": call[1]},
                 "id": call[0], "type": "function"}],
            "function_call": None}


def _tool(call_id, name, result):
    return {"role": "tool", "tool_call_id": call_id, "name": name, "content": json.dumps(result)}


def _real_format_records() -> list[dict]:
    user = "omar_davis_3817"
    good = [  # all three reference calls, plus an extra lookup; the answer cites JFK / SEA
        {"role": "system", "content": "# Airline Agent Policy"},
        {"role": "user", "content": "Hi. I need to downgrade my flight to economy."},
        _msg("Sure. What is your user id?"),
        {"role": "user", "content": f"It is {user}."},
        _msg(None, ("c1", "get_user_details", {"user_id": user})),
        _tool("c1", "get_user_details", {"user_id": user, "reservations": ["JG7FMM", "2FBBAH"]}),
        _msg(None, ("c2", "get_reservation_details", {"reservation_id": "JG7FMM"})),
        _tool("c2", "get_reservation_details",
              {"reservation_id": "JG7FMM", "origin": "JFK", "destination": "SEA"}),
        _msg(None, ("c3", "get_reservation_details", {"reservation_id": "2FBBAH"})),
        _tool("c3", "get_reservation_details",
              {"reservation_id": "2FBBAH", "origin": "LAX", "destination": "ORD"}),
        _msg("Your JFK to SEA flight can move to economy, refunded to your card. Confirm?"),
        {"role": "user", "content": "Yes."},
        _msg(None, ("c4", "update_reservation_flights", dict(_ACTIONS[2]["kwargs"]))),
        _tool("c4", "update_reservation_flights", {"reservation_id": "JG7FMM", "cabin": "economy"}),
        _msg("Done."),
        {"role": "user", "content": "###STOP###"},
    ]
    wrong = dict(_ACTIONS[2]["kwargs"], payment_id="gift_card_3481935")
    bad = [  # lookups out of the reference's order, the wrong payment method, no result cited
        {"role": "system", "content": "# Airline Agent Policy"},
        {"role": "user", "content": f"I am {user}; downgrade reservation JG7FMM to economy."},
        _msg(None, ("d1", "get_reservation_details", {"reservation_id": "JG7FMM"})),
        _tool("d1", "get_reservation_details",
              {"reservation_id": "JG7FMM", "origin": "BOS", "destination": "MIA"}),
        _msg(None, ("d2", "get_user_details", {"user_id": user})),
        _tool("d2", "get_user_details", {"user_id": user, "reservations": ["JG7FMM"]}),
        _msg("Please confirm."),
        {"role": "user", "content": "Yes."},
        _msg(None, ("d3", "update_reservation_flights", wrong)),
        _tool("d3", "update_reservation_flights", {"reservation_id": "JG7FMM"}),
        _msg("Done."),
        {"role": "user", "content": "###STOP###"},
    ]

    def info(reward):
        return {"task": {"user_id": user, "actions": _ACTIONS,
                         "instruction": "You are omar_davis_3817 ...", "outputs": []},
                "source": "user", "user_cost": 0.0021,
                "reward_info": {"reward": reward, "info": {"r_actions": reward,
                                                           "gt_data_hash": "ab" * 32},
                                "actions": _ACTIONS[:3]}}

    return [{"task_id": 7, "reward": 1.0, "info": info(1.0), "traj": good, "trial": 0},
            {"task_id": 7, "reward": 0.0, "info": info(0.0), "traj": bad, "trial": 1}]


# By hand, from the definitions in metrics/tools.py (weights 1/4 each, sequence not scored):
# good: 4 used, 3 expected, 3 matched -> selection 3/4; every matched argument equal ->
#       parameters 1; sequence 1; "JFK"/"SEA" from a result are in the answer -> utilization 1.
# bad:  3 used, 3 matched -> selection 1; parameters (1 + 1 + 3/4) / 3 = 11/12 (payment_id
#       wrong); order differs but does not count -> 1; nothing cited -> utilization 0.
_HAND = {0: (Fraction(3, 4), Fraction(1), Fraction(1), Fraction(1)),
         1: (Fraction(1), Fraction(11, 12), Fraction(1), Fraction(0))}


def test_expected_actions_become_expected_tools_every_call_kept(tmp_path):
    records = _real_format_records()
    path = tmp_path / "gpt-4o-airline.json"
    path.write_text(json.dumps(records, indent=2), encoding="utf-8")
    datasets = load_datasets(path)
    for ds, rec in zip(datasets, records):
        assert len(ds.conversation) == 1  # the actions are the reference for the whole episode
        batch = ds.conversation[0]
        truth = batch.ground_truth_agentic
        assert truth.tool_sequence_matters is False
        assert [(t.tool_name, t.parameters, t.step) for t in truth.expected_tools] == \
            [(a["name"], a["kwargs"], i) for i, a in enumerate(_ACTIONS[:3], start=1)]  # no respond
        made = [c for m in rec["traj"] for c in m.get("tool_calls") or []]
        assert [(t.tool_name, t.parameters) for t in batch.agentic.tools_used] == \
            [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in made]
        assert [t.step for t in batch.agentic.tools_used] == list(range(1, len(made) + 1))
        assert not any(t.after_answer for t in batch.agentic.tools_used)  # "Done." came last
        users = [m["content"] for m in rec["traj"] if m["role"] == "user"]
        assert batch.query == "\n\n".join(users)
        assert batch.assistant.endswith("Done.")
        assert ds.metadata["info"]["task"]["actions"][3]["name"] == "respond"  # kept as logged
    results = Agentic.run(datasets, k=1)
    for result, ds in zip(results, datasets):
        (score,) = result.tool_correctness_scores
        hand = _HAND[ds.attempt]
        got = (score.tool_selection_correct, score.parameter_accuracy, score.sequence_correct,
               score.result_utilization)
        assert got == pytest.approx([float(x) for x in hand], abs=1e-12)
        assert score.overall_correctness == pytest.approx(float(sum(hand) / 4), abs=1e-12)
        assert result.is_fully_correct is (ds.outcome == 1.0)  # tau-bench's reward decides


def test_expected_actions_cli_prints_the_tool_score_per_conversation(tmp_path, capsys):
    path = tmp_path / "gpt-4o-airline.json"
    path.write_text(json.dumps(_real_format_records()), encoding="utf-8")
    assert main(["run", str(path), "--k", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line.split() for line in lines if line.split()[:1] == ["session"])
    assert header[-2:] == ["tools", "errors"]
    rows = {line.split()[0]: line.split() for line in lines if line.startswith("gpt-4o-airline/")}
    for trial, hand in _HAND.items():
        assert rows[f"gpt-4o-airline/task-7-trial-{trial}"][-2] == f"{float(sum(hand) / 4):.3f}"
    assert rows["gpt-4o-airline/task-7-trial-0"][-2] == "0.938"  # (3/4+1+1+1)/4
    assert rows["gpt-4o-airline/task-7-trial-1"][-2] == "0.729"  # (1+11/12+1+0)/4 = 35/48


@pytest.mark.parametrize("actions, field, message", [
    ({"name": "x"}, "info.task.actions", "list of actions"),
    (["cancel"], "info.task.actions[0]", "action object"),
    ([{"kwargs": {}}], "info.task.actions[0].name", "non-empty string"),
    ([{"name": "cancel", "kwargs": [1]}], "info.task.actions[0].kwargs", "expected an object"),
])
def test_bad_actions_name_file_line_and_field(tmp_path, actions, field, message):
    record = {"task_id": 0, "trial": 0, "reward": 1.0,
              "info": {"task": {"user_id": "u", "actions": actions}},
              "traj": [{"role": "user", "content": "hi"}]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps([record], indent=2), encoding="utf-8")
    with pytest.raises(DataError, match=message) as err:
        load_datasets(path, input_format="taubench")
    assert err.value.source == str(path) and err.value.field == field and err.value.line == 2


def test_demo_expected_tools_and_scores():
    """The bundled demo: its actions scored by hand (success 15/16, wrong reservation 41/48)."""
    root = Path(__file__).resolve().parents[2]
    demo = root / "data" / "taubench_demo.json"
    records = json.loads(demo.read_text())
    results = Agentic.run(str(demo), k=4)
    for rec, result in zip(records, results):
        (score,) = result.tool_correctness_scores
        if "task" not in rec["info"]:  # the crashed trial logged no task: nothing expected
            assert score is None
            continue
        # 4 calls for 3 tool actions (respond left out): selection 3/4; the failed trials
        # cancel the wrong reservation: parameters 2/3; sequence 1; the answer says "active"
        success = rec["reward"] == 1.0
        hand = (Fraction(3, 4) + (1 if success else Fraction(2, 3)) + 1 + 1) / 4
        assert score.overall_correctness == pytest.approx(float(hand), abs=1e-12)
