"""The peer's side of the comparisons: alquimia-fair-forge 3.0.0, run in the benchmark venv.

Runs in its own interpreter (``.cache/bench-venv/bin/python``), never in agenteval's, and prints
one JSON line. Modes, each the same work as agenteval's side of the comparison:

- ``stats N_C_FILE K``: per-conversation Bayesian pass@k / pass^k with 95% intervals, exactly as
  ``fair_forge.metrics.agentic.Agentic._process`` computes them (``BayesianMode.rate_estimation``
  then the sample transforms and quantiles copied from it), for the (n, c) pairs in the file;
  writes the estimates next to it (``.peer.npy``) so the caller measures their error.
- ``offline JSONL K``: ``Agentic.run`` over the file with a fake LangChain chat model that
  answers at once (the peer has no offline judge), in the peer's default structured-output mode,
  so this times the peer's own pipeline: loading, its judge plumbing (a LangChain agent built
  per call), tool scoring, statistics, results. (Its plain-text mode fails on every call in
  3.0.0: the JSON-format instruction it appends has unescaped braces, which LangChain's prompt
  template reads as a variable, and the failure is scored 0.)
- ``e2e JSONL K BASE_URL``: ``Agentic.run`` with LangChain's ``ChatOpenAI`` pointed at the local
  server (127.0.0.1 only), structured output (its default).
"""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path

from _peak import peak_mib as _peak_mib  # beside this script, standard library only


def _retriever(path: str):
    from fair_forge.core.retriever import Retriever
    from fair_forge.schemas.common import Dataset

    class JsonlRetriever(Retriever):
        def load_dataset(self) -> list[Dataset]:
            with open(path, encoding="utf-8") as fh:
                return [Dataset.model_validate(json.loads(line)) for line in fh if line.strip()]

    return JsonlRetriever




def stats(nc_file: str, k: int) -> dict:
    import numpy as np
    from fair_forge.statistical import BayesianMode

    n, c = np.load(nc_file)
    mode = BayesianMode()  # 5,000 Monte Carlo draws, seed 42: the peer's defaults
    alpha = (1.0 - mode.ci_level) / 2.0
    out = np.empty((6, len(n)))
    t0 = time.perf_counter()
    for i, (ni, ci) in enumerate(zip(n.tolist(), c.tolist())):
        p = mode.rate_estimation(ci, ni)["samples"]  # as in Agentic._process
        at, pw = 1.0 - (1.0 - p) ** k, p**k
        out[:, i] = (np.mean(at), np.quantile(at, alpha), np.quantile(at, 1 - alpha),
                     np.mean(pw), np.quantile(pw, alpha), np.quantile(pw, 1 - alpha))
    seconds = time.perf_counter() - t0
    np.save(Path(nc_file).with_suffix(".peer.npy"), out)
    return {"seconds": seconds, "conversations": len(n)}


def offline(path: str, k: int) -> dict:
    from fair_forge.metrics.agentic import Agentic
    from fair_forge.statistical import BayesianMode
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    class FixedVerdict(FakeListChatModel):
        """Answers every judge call at once with a valid verdict; takes the structured-output
        binding the peer's default mode asks for (a provider's model would send it on)."""

        def bind_tools(self, tools, **kwargs):  # noqa: ANN001, ANN003
            return self

    model = FixedVerdict(responses=['{"correctness_score": 1.0, "reasoning": "fixed"}'])
    t0, c0 = time.perf_counter(), time.process_time()
    metrics = Agentic.run(_retriever(path), k=k, model=model, statistical_mode=BayesianMode())
    scores = [s for m in metrics for s in m.correctness_scores]
    if not scores or min(scores) != 1.0:  # a judge call that failed inside the peer scores 0
        raise SystemExit("the peer's judge calls failed: the timing would not be of its work")
    return {"seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0,
            "conversations": len(metrics), "peak_rss_mib": _peak_mib()}


def e2e(path: str, k: int, base_url: str) -> dict:
    if not base_url.startswith("http://127.0.0.1:"):
        raise SystemExit("the peer's judge may only talk to 127.0.0.1")
    from fair_forge.metrics.agentic import Agentic
    from langchain_openai import ChatOpenAI

    model = ChatOpenAI(model="bench-model", base_url=base_url, api_key="bench", max_retries=0,
                       temperature=0)
    t0 = time.perf_counter()
    metrics = Agentic.run(_retriever(path), k=k, model=model)  # structured output, its default
    seconds = time.perf_counter() - t0
    scores = [s for m in metrics for s in m.correctness_scores]
    return {"seconds": seconds, "conversations": len(metrics),
            "failed_calls": sum(s == 0.0 for s in scores), "calls": len(scores)}


def main() -> None:
    logging.disable(logging.CRITICAL)  # the peer logs every interaction
    mode, *args = sys.argv[1:]
    t0 = time.perf_counter()
    if mode == "stats":
        result = stats(args[0], int(args[1]))
    elif mode == "offline":
        result = offline(args[0], int(args[1]))
    elif mode == "e2e":
        result = e2e(args[0], int(args[1]), args[2])
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    from importlib.metadata import version

    result.update(mode=mode, version=version("alquimia-fair-forge"),
                  process_seconds=time.perf_counter() - t0)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
