"""Write the figures of ``results.json`` into ``README.md`` (between the figures markers).

``run_all.py`` calls this after every run, so the README always shows the last run's figures;
run it by hand after editing the prose: ``.venv/bin/python benchmarks/render.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
START, END = "<!-- figures:start (benchmarks/render.py writes this part) -->", "<!-- figures:end -->"


def _f(x: float | None, digits: int = 2) -> str:
    if x is None:
        return "-"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    return f"{x:.{digits}f}"


def _machine(r: dict) -> list[str]:
    m, v = r["machine"], r["versions"]
    peer = v.get("peer", {})
    lines = [f"Last run: {r['date']} on {m['cpu']} ({m['cores']} cores, {m['system']}, Python "
             f"{m['python']}); agenteval {v.get('agenteval', '?')} (commit "
             f"{v.get('agenteval_commit', '?')}), numpy {v.get('numpy', '?')}, scipy "
             f"{v.get('scipy', '?')}, pydantic {v.get('pydantic', '?')}."]
    if peer:
        lines.append("Peer: " + ", ".join(f"{k} {val}" for k, val in peer.items()) + ".")
    else:
        lines.append(f"Peer: skipped ({r.get('peer_skipped')}).")
    lines.append(f"Load average (1, 5, 15 min) at the start: {r['loadavg_start']}, at the end: "
                 f"{r.get('loadavg_end')} (2 cores shared with other jobs: wall times are "
                 "inflated, the ratios come from interleaved runs).")
    return [" ".join(lines), ""]


def _statistics(b: dict) -> list[str]:
    out = ["### Statistics: per-conversation Bayesian pass@k / pass^k with 95% intervals", "",
           "| conversations | agenteval (exact) | peer (Monte Carlo) | peer / agenteval | peer's max error |",
           "| ---: | ---: | ---: | ---: | ---: |"]
    for row in b["rows"]:
        peer = (f"{_f(row['peer_s'])} s" + (" (scaled from "
                f"{row['peer_timed_conversations']:,})" if row.get("peer_extrapolated") else "")
                if "peer_s" in row else "skipped")
        out.append(f"| {row['conversations']:,} | {row['agenteval_s']:.4f} s | {peer} | "
                   f"{_f(row.get('ratio'), 0) + 'x' if 'ratio' in row else '-'} | "
                   f"{row.get('peer_max_abs_error', '-')} |")
    return [*out, ""]


def _pipeline(b: dict) -> list[str]:
    names = [k for k in b["rows"][0] if isinstance(b["rows"][0][k], dict)]
    out = ["### Offline pipeline (distinct texts, 5 interactions per conversation)", "",
           "| conversations | run | wall time | CPU time | interactions/s | peak memory | "
           "time / agenteval's |", "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
    for row in b["rows"]:
        for name in names:
            r = row[name]
            ratio = r.get("time_ratio_vs_agenteval")
            out.append(f"| {row['conversations']:,} | {name} | {_f(r['seconds'])} s | "
                       f"{_f(r['cpu_seconds'])} s | {r['interactions_per_s']:,} | "
                       f"{_f(r['peak_rss_mib'], 0)} MiB | {_f(ratio) + 'x' if ratio else '1'} |")
    out.append("")
    if b.get("scaling_exponent"):
        out += ["Scaling exponent from 1k to 10k conversations (1 = linear), wall time: " + ", ".join(
            f"{k} {v}" for k, v in b["scaling_exponent"].items()) + (
            "; CPU time: " + ", ".join(f"{k} {v}" for k, v in b["scaling_exponent_cpu"].items())
            if b.get("scaling_exponent_cpu") else "") + ".", ""]
    return out


def _bigresult(b: dict) -> list[str]:
    big, ref = b["big"], next(v for k, v in b.items() if k.startswith("reference"))
    return ["### One 50 MB tool result, offline", "",
            "| result | time | peak memory | evidence | cut reported |",
            "| --- | ---: | ---: | --- | --- |",
            f"| {ref['megabytes']} MB (under the cap) | {_f(ref['seconds'])} s | "
            f"{_f(ref['peak_rss_mib'], 0)} MiB | {ref['evidence']} | {ref['cut_reported']} |",
            f"| {big['megabytes']} MB | {_f(big['seconds'])} s | {_f(big['peak_rss_mib'], 0)} MiB "
            f"| {big['evidence']} | {big['cut_reported']} |",
            f"| 50 MB before the fix (issue 9) | {b['before_fix']['seconds']} s | about "
            f"{b['before_fix']['memory_gb']} GB | | |", ""]


def _e2e(b: dict) -> list[str]:
    out = [f"### End to end with an LLM judge ({b['conversations']} conversations, "
           f"{b['interactions']} interactions, server latency {b['latency_s'] * 1000:.0f} ms)", "",
           "| run | wall time | requests at the server | ideal | share of the ideal |",
           "| --- | ---: | ---: | ---: | ---: |"]
    for name in ("agenteval_cold", "agenteval_rerun", "peer_cold", "peer_rerun"):
        if name in b:
            r = b[name]
            share = "-" if r["share_of_ideal"] is None else f"{r['share_of_ideal']:.2f}"
            out.append(f"| {name.replace('_', ' ')} | {_f(r['seconds'])} s | {r['requests']} | "
                       f"{_f(r['ideal_s'])} s | {share} |")
    ratios = [f"{when}: {b[f'peer_over_agenteval_{when}']}x" for when in ("cold", "rerun")
              if f"peer_over_agenteval_{when}" in b]
    if ratios:
        out += ["", "Peer time / agenteval time, " + "; ".join(ratios) + "."]
    return [*out, ""]


def _imports(b: dict) -> list[str]:
    out = ["### Import and first use (fresh interpreters, median)", "", "| step | time |",
           "| --- | ---: |"]
    out += [f"| {name} | {s:.3f} s |" for name, s in b["seconds"].items()]
    if b.get("not_installed"):
        out += ["", "Not installed here, so not timed: " + ", ".join(b["not_installed"]) + "."]
    return [*out, ""]


def _hierarchical(b: dict) -> list[str]:
    out = ["### Hierarchical model fits (PyMC, default sampler; empirical Bayes)", "",
           "| units | MCMC cold | MCMC warm cache | empirical Bayes (warm) | import pymc (cold) | "
           "max r_hat | divergences |", "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for row in b["rows"]:
        cold, warm = row["cold"], row["warm"]
        out.append(f"| {row['units']:,} | {_f(cold['mcmc_s'])} s | {_f(warm['mcmc_s'])} s | "
                   f"{warm['eb_s']:.3f} s | {_f(cold['import_s'])} s | {cold['r_hat_max']:.3f} | "
                   f"{cold['divergences']} |")
    return [*out, ""]


def _judge(b: dict) -> list[str]:
    return [f"### LLM judge alone ({b['n']:,} judgments, {b['latency_s'] * 1000:.0f} ms latency)",
            "", "| run | time | requests at the server | share of the ideal |",
            "| --- | ---: | ---: | ---: |",
            f"| sequential (1) | {_f(b['sequential_s'])} s | {b['sequential_server_requests']} | "
            f"{b['sequential_share_of_ideal']:.2f} |",
            f"| concurrent ({b['concurrency']}) | {_f(b['concurrent_s'])} s | "
            f"{b['concurrent_server_requests']} | {b['share_of_ideal']:.2f} |",
            f"| warm cache | {_f(b['warm_cache_s'])} s | {b['warm_cache_server_requests']} | - |",
            ""]


def _mainjob(b: dict) -> list[str]:
    names = list(b["results"])
    out = ["### The main job as ratios (`bench_mainjob.py`, interleaved, medians)", "",
           "| checkout | `run demo --out` / without (wall) | (CPU) | --out CPU | without CPU | "
           "run + summary() / loading (CPU) | to_inference_data 1st | 2nd |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name in names:
        r = b["results"][name]
        cli, idata = r.get("cli", {}), r.get("idata", {})
        offline = ", ".join(f"{o['ratio']}x at {o['conversations']:,}" for o in r.get("offline", []))
        out.append(f"| {name} | {cli.get('out_ratio_wall', '-')}x | {cli.get('out_ratio_cpu', '-')}x | "
                   f"{_f(cli.get('out_cpu_seconds'))} s | {_f(cli.get('plain_cpu_seconds'))} s | "
                   f"{offline or '-'} | "
                   + (f"{_f(idata['first_seconds'])} s | {idata['second_seconds']:.4f} s |"
                      if idata else "- | - |"))
    if any("idata" in b["results"][n] for n in names):
        size = next(b["results"][n]["idata"]["conversations"] for n in names
                    if "idata" in b["results"][n])
        out += ["", f"to_inference_data at {size:,} conversations (arviz imported before timing)."]
    return [*out, ""]


def _generic(name: str, b: dict) -> list[str]:
    shown = {k: v for k, v in b.items() if k not in ("benchmark", "date")}
    return [f"### {name}", "", "```json", json.dumps(shown, indent=1)[:3000], "```", ""]


RENDER = {"statistics": _statistics, "pipeline": _pipeline, "bigresult": _bigresult,
          "e2e": _e2e, "import": _imports, "hierarchical": _hierarchical, "judge": _judge,
          "mainjob": _mainjob}


def render(results: Path = HERE / "results.json", readme: Path = HERE / "README.md") -> None:
    r = json.loads(results.read_text(encoding="utf-8"))
    lines = _machine(r)
    for key, b in r["benchmarks"].items():
        kind = b.get("benchmark", key)
        section = RENDER[kind](b) if kind in RENDER else _generic(key, b)
        if b.get("date") and b["date"] != r["date"]:  # from an earlier (full) run
            section[0] += f" (run {b['date']}" + (f", commit {b['commit']})" if b.get("commit") else ")")
        lines += section
    text = readme.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    readme.write_text(head + START + "\n\n" + "\n".join(lines) + "\n" + END + tail, encoding="utf-8")


if __name__ == "__main__":
    render()
