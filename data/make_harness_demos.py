"""Write the harness demos: a tau-bench results file and two Inspect AI eval logs.

* ``data/taubench_demo.json``: tau-bench's own results format (a JSON list of
  ``{task_id, trial, reward, info, traj}``) for one airline-style agent, 8 tasks x 4 trials,
  seeded: lookups, parallel calls, cancellations made with no text after them, trials cut off
  mid-turn, and one crashed trial (empty trajectory, reward 0), as tau-bench writes them; each
  record's ``info`` is tau-bench's ``EnvInfo`` (the task with its ground-truth ``actions``,
  ``respond`` included on even tasks, and the ``reward_info``).
* ``data/inspect_demo/model-a.eval``, ``model-b.eval``: real Inspect logs written by Inspect with
  its mock model (``tests/core/make_inspect_logs.py``: 3 samples x 3 epochs, a tool-using
  solver, scorers ``match`` and ``graded``). Needs ``agenteval[inspect]``; no network.

    python data/make_harness_demos.py                 # rewrite both
    python data/make_harness_demos.py --check         # exit 1 if the tau-bench file differs

Inspect logs carry timestamps and random ids, so only the tau-bench file is checked byte for byte.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TAU_OUT = HERE / "taubench_demo.json"
INSPECT_OUT = HERE / "inspect_demo"
SEED = 9
TASKS, TRIALS = 8, 4


def _call(call_id: str, name: str, args: dict) -> dict:
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}


def _traj(rng: random.Random, task: int, trial: int, success: bool) -> list[dict]:
    uid, res = _user(task), _reservation(task)
    tag = f"{task}_{trial}"
    traj = [
        {"role": "system", "content": "# Airline Agent Policy\nCancel only with the user's "
                                      "explicit confirmation."},
        {"role": "user", "content": f"Hi, this is {uid}. Please cancel my reservation {res}."},
        {"role": "assistant", "content": None, "tool_calls": [
            _call(f"call_u{tag}", "get_user_details", {"user_id": uid})]},
        {"role": "tool", "tool_call_id": f"call_u{tag}", "name": "get_user_details",
         "content": json.dumps({"user_id": uid, "reservations": [res, "ZZ9999"]})},
        {"role": "assistant", "content": None, "tool_calls": [
            _call(f"call_r{tag}", "get_reservation_details", {"reservation_id": res}),
            _call(f"call_z{tag}", "get_reservation_details", {"reservation_id": "ZZ9999"})]},
        {"role": "tool", "tool_call_id": f"call_r{tag}", "name": "get_reservation_details",
         "content": json.dumps({"reservation_id": res, "insurance": "yes", "status": "active"})},
        {"role": "tool", "tool_call_id": f"call_z{tag}", "name": "get_reservation_details",
         "content": "Error: reservation not found"},
        {"role": "assistant", "content": f"Reservation {res} is active and has travel "
                                         "insurance, so it can be cancelled with a full refund. "
                                         "Shall I go ahead?"},
        {"role": "user", "content": "Yes, go ahead."},
        {"role": "assistant", "content": "Cancelling it now.", "tool_calls": []},
    ]
    target = res if success else "ZZ9999"  # a failed trial cancels the wrong reservation
    traj.append({"role": "assistant", "content": None, "tool_calls": [
        _call(f"call_c{tag}", "cancel_reservation", {"reservation_id": target})]})
    if rng.random() < 0.25:  # cut off: the step limit hit before the tool answered
        return traj
    traj.append({"role": "tool", "tool_call_id": f"call_c{tag}", "name": "cancel_reservation",
                 "content": json.dumps({"reservation_id": target, "status": "cancelled"})})
    traj.append({"role": "user", "content": "###STOP###"})
    return traj


def _user(task: int) -> str:
    return f"mia_li_{3668 + task}"


def _reservation(task: int) -> str:
    return f"R{task:02d}XK{task % 3}"


def _actions(task: int) -> list[dict]:
    """The task's reference solution, as tau-bench's ``Task.actions``."""
    uid, res = _user(task), _reservation(task)
    actions = [{"name": "get_user_details", "kwargs": {"user_id": uid}},
               {"name": "get_reservation_details", "kwargs": {"reservation_id": res}},
               {"name": "cancel_reservation", "kwargs": {"reservation_id": res}}]
    if task % 2 == 0:  # a message to the user: not a tool
        actions.append({"name": "respond",
                        "kwargs": {"content": f"Reservation {res} is cancelled."}})
    return actions


def _info(task: int, reward: float) -> dict:
    """tau-bench's ``EnvInfo`` at the end of an episode (``reward_info.actions`` omits respond)."""
    actions = _actions(task)
    return {"task": {"user_id": _user(task), "actions": actions,
                     "instruction": f"You are {_user(task)}. You want to cancel reservation "
                                    f"{_reservation(task)}.", "outputs": []},
            "source": "user", "user_cost": 0.0,
            "reward_info": {"reward": reward,
                            "info": {"r_actions": reward, "gt_data_hash": f"{task:064x}"},
                            "actions": [a for a in actions if a["name"] != "respond"]}}


def taubench_records() -> list[dict]:
    rng = random.Random(SEED)
    records = []
    for trial in range(TRIALS):
        for task in range(TASKS):
            p = 0.15 + 0.8 * task / (TASKS - 1)  # tasks of every difficulty
            success = rng.random() < p
            records.append({"task_id": task, "reward": 1.0 if success else 0.0,
                            "info": _info(task, 1.0 if success else 0.0),
                            "traj": _traj(rng, task, trial, success), "trial": trial})
    records[5] = {"task_id": 5, "reward": 0.0, "info": {"error": "RateLimitError: 429",
                  "traceback": "Traceback (most recent call last): ..."}, "traj": [], "trial": 0}
    return records


def write_inspect_logs() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, XDG_DATA_HOME=str(Path(tmp) / "xdg"))
        subprocess.run([sys.executable, str(HERE.parent / "tests" / "core" / "make_inspect_logs.py"),
                        tmp], check=True, env=env)
        INSPECT_OUT.mkdir(exist_ok=True)
        for path in sorted((Path(tmp) / "eval").glob("*.eval")):
            from inspect_ai.log import read_eval_log

            model = read_eval_log(str(path), header_only=True).eval.model.split("/")[-1]
            shutil.copy(path, INSPECT_OUT / f"{model}.eval")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = json.dumps(taubench_records(), indent=2) + "\n"
    if args.check:
        same = TAU_OUT.read_text(encoding="utf-8") == text
        print(f"{TAU_OUT.name}: {'up to date' if same else 'DIFFERS from the generator'}")
        return 0 if same else 1
    TAU_OUT.write_text(text, encoding="utf-8")
    write_inspect_logs()
    print(f"wrote {TAU_OUT.name} and {INSPECT_OUT.name}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
