"""``agenteval plan``: how many tasks (and attempts) a study needs, or what power a design has."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from agenteval.errors import ConfigError, DataError

EPILOG = """\
examples:
  # tasks needed to detect 0.70 vs 0.60 task-level success with 80% power, 4 attempts per task,
  # both agents on the same tasks (paired), task difficulty spread icc=0.3, rates correlating 0.6
  agenteval plan --rate-a 0.7 --rate-b 0.6 --attempts 4 --icc 0.3 --correlation 0.6

  # the power of 50 tasks x 4 attempts, checked by 2000 simulated studies analysed as agenteval does
  agenteval plan --rate-a 0.7 --rate-b 0.6 --attempts 4 --icc 0.3 --correlation 0.6 \\
      --tasks 50 --simulate 2000

  # the same difference on pass^3 instead of success, unpaired (each agent on its own tasks)
  agenteval plan --rate-a 0.7 --rate-b 0.6 --attempts 4 --icc 0.3 --quantity pass^k --k 3 --unpaired

  # tasks for a 95% interval of total width 0.1 on one agent's pass^3
  agenteval plan --rate-a 0.7 --attempts 5 --icc 0.3 --quantity pass^k --k 3 --width 0.1

  # difficulty spread, correlation and rates estimated from a pilot run (agenteval run --out DIR)
  agenteval plan --pilot out/demo/results.json --rate-a 0.45 --rate-b 0.6 --attempts 4

  # a power curve (table; with --out DIR also power_curve.png / .pdf)
  agenteval plan --rate-a 0.7 --rate-b 0.6 --attempts 4 --icc 0.3 --curve 20:200:20 --out out/plan

  # which interactions to label next: 100 more labels for the judge-corrected rate of a run
  agenteval plan --results out/demo/results.json --labels labels.jsonl --add 100 --by agent

The spread of task difficulty is an assumption (--icc: the share of an attempt's outcome variance
that lies between tasks, 1/(kappa+1); or --kappa) unless a pilot run gives it.
"""


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``plan`` on the subcommand parsers ``sub``."""
    p = sub.add_parser("plan", help="power and sample-size planning before a study",
                       description="Plan an agent evaluation: tasks needed for a given power or "
                       "interval width, or the power of a design (closed form; --simulate checks "
                       "it by simulating the actual analysis).",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rate-a", type=float, help="agent A's mean task success rate (0-1)")
    p.add_argument("--rate-b", type=float, help="agent B's mean task success rate (0-1)")
    p.add_argument("--icc", type=float, help="spread of task difficulty as an intra-class "
                   "correlation in [0, 1): 0 = all tasks alike")
    p.add_argument("--kappa", type=float, help="spread as the Beta concentration (instead of --icc)")
    p.add_argument("--kappa-b", type=float, help="agent B's concentration (default: A's)")
    p.add_argument("--correlation", type=float,
                   help="correlation of the two agents' per-task rates (default 0.5 paired)")
    p.add_argument("--attempts", type=int, default=1, help="attempts per task per agent "
                   "(default: %(default)s)")
    p.add_argument("--tasks", type=int, help="planned tasks: report the power of this design")
    p.add_argument("--power", type=float, default=0.8, help="target power (default: %(default)s)")
    p.add_argument("--width", type=float, help="total interval width wanted on agent A's "
                   "quantity: report the tasks needed")
    p.add_argument("--quantity", choices=("success", "pass^k", "pass@k"), default="success",
                   help="what is compared (default: %(default)s)")
    p.add_argument("--k", type=int, default=1, help="k of pass^k / pass@k (default: %(default)s)")
    p.add_argument("--unpaired", action="store_true",
                   help="agents on different tasks (default: paired on the same tasks)")
    p.add_argument("--ci-level", type=float, default=0.95,
                   help="interval level; the test's alpha is 1 - level (default: %(default)s)")
    p.add_argument("--pilot", type=Path, help="results.json of a pilot run (agenteval run --out)")
    p.add_argument("--pilot-agents", nargs="+", metavar="AGENT",
                   help="which agents of the pilot are A (and B); default: the pilot's agents")
    p.add_argument("--simulate", type=int, default=0, metavar="N",
                   help="also simulate N studies analysed by the paired bootstrap")
    p.add_argument("--seed", type=int, default=0, help="simulation seed (default: %(default)s)")
    p.add_argument("--curve", metavar="START:STOP:STEP",
                   help="print power at these numbers of tasks (a power curve)")
    p.add_argument("--out", type=Path, help="directory for the power-curve figure (with --curve)")
    p.add_argument("--format", choices=("table", "json"), default="table", help="stdout format")
    from agenteval.cli.label_plan import add_label_arguments

    add_label_arguments(p)
    p.set_defaults(handler=plan_command)
    return p


def pilot_counts(path: Path, agents: list[str] | None) -> tuple[Any, ...]:
    """Per-task (n, c) of one agent, or aligned (n_a, c_a, n_b, c_b) on two agents' shared tasks."""
    import numpy as np

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        conversations = data["conversations"]
    except FileNotFoundError:
        raise DataError("no such file", source=str(path)) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"not JSON ({exc})", source=str(path)) from None
    except (KeyError, TypeError):
        raise DataError("no 'conversations' list: expected results.json from agenteval run --out",
                        source=str(path), field="conversations") from None
    tasks: dict[str, dict[str, list[int]]] = {}
    for i, conv in enumerate(conversations):
        if not isinstance(conv, dict) or "assistant_id" not in conv:
            raise DataError("conversation without assistant_id", source=str(path),
                            field=f"conversations[{i}].assistant_id")
        if conv.get("task_id") is None or conv.get("judge_errors", 0) or conv.get("is_fully_correct") is None:
            continue
        counts = tasks.setdefault(str(conv["assistant_id"]), {}).setdefault(str(conv["task_id"]), [0, 0])
        counts[0] += 1
        counts[1] += int(conv["is_fully_correct"] is True)
    names = agents or list(tasks)
    if not names or len(names) > 2:
        raise ConfigError(f"--pilot-agents: name one or two agents of the pilot (it has "
                          f"{sorted(tasks) or 'no complete conversation with a task_id'})")
    for name in names:
        if name not in tasks:
            raise ConfigError(f"--pilot-agents: {name!r} has no complete conversation with a "
                              f"task_id in {path} (agents: {sorted(tasks)})")
    if len(names) == 1:
        v = list(tasks[names[0]].values())
        return np.array([x[0] for x in v]), np.array([x[1] for x in v])
    shared = [t for t in tasks[names[0]] if t in tasks[names[1]]]
    if not shared:
        raise ConfigError(f"--pilot-agents: {names[0]!r} and {names[1]!r} share no task_id")
    a, b = tasks[names[0]], tasks[names[1]]
    return (np.array([a[t][0] for t in shared]), np.array([a[t][1] for t in shared]),
            np.array([b[t][0] for t in shared]), np.array([b[t][1] for t in shared]))


def _grid(text: str) -> list[int]:
    try:
        start, stop, step = (int(x) for x in text.split(":"))
    except ValueError:
        raise ConfigError(f"--curve must be START:STOP:STEP integers, got {text!r}") from None
    if start < 2 or step < 1 or stop < start:
        raise ConfigError(f"--curve needs 2 <= START <= STOP and STEP >= 1, got {text!r}")
    return list(range(start, stop + 1, step))


def plan_command(args: argparse.Namespace) -> int:
    from agenteval.statistical.plan import plan, power_curve

    if args.labels is not None or args.results is not None:
        from agenteval.cli.label_plan import label_plan_command

        return label_plan_command(args)

    kwargs: dict[str, Any] = dict(
        rate_a=args.rate_a, rate_b=args.rate_b, kappa=args.kappa, icc=args.icc,
        kappa_b=args.kappa_b, correlation=args.correlation, attempts=args.attempts,
        power=args.power, ci_level=args.ci_level, quantity=args.quantity, k=args.k,
        paired=not args.unpaired, seed=args.seed,
        pilot=pilot_counts(args.pilot, args.pilot_agents) if args.pilot else None)
    if args.out is not None and args.curve is None:
        raise ConfigError("--out writes the power-curve figure: give --curve too")
    if args.curve is not None:
        if args.width is not None or args.tasks is not None:
            raise ConfigError("--curve gives power at many task counts: drop --tasks / --width")
        curve = power_curve(_grid(args.curve), simulate=args.simulate, **kwargs)
        rows = [{"tasks": int(t), "power": float(p),
                 "simulated_power": (None if curve.simulated is None else float(curve.simulated[i]))}
                for i, (t, p) in enumerate(zip(curve.tasks, curve.power))]
        if args.format == "json":
            json.dump({"quantity": curve.quantity, "attempts": curve.attempts,
                       "paired": curve.paired, "curve": rows}, sys.stdout, indent=2)
            sys.stdout.write("\n")
        else:
            print(f"power curve: {curve.quantity}, {curve.attempts} attempts per task, "
                  f"{'paired' if curve.paired else 'unpaired'}")
            print(f"{'tasks':>7}{'power':>9}" + (f"{'simulated':>11}" if curve.simulated is not None else ""))
            for r in rows:
                sim = "" if r["simulated_power"] is None else f"{r['simulated_power']:>11.3f}"
                print(f"{r['tasks']:>7}{r['power']:>9.3f}{sim}")
        if args.out is not None:
            from agenteval.plots import export
            from agenteval.plots.compare import plot_power_curve

            written = export(plot_power_curve(curve), args.out / "power_curve", ("png", "pdf"))
            if args.format == "table":
                print(f"wrote {', '.join(str(p) for p in written)}")
        return 0
    result = plan(tasks=args.tasks, width=args.width, simulate=args.simulate, **kwargs)
    if args.format == "json":
        out = {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
               for k, v in result.__dict__.items()}
        json.dump(out, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(result.to_text())
    return 0
