"""Building the judge imports its libraries, so none is first imported inside a batch.

(Imports inside the first batch cost about 0.3 s of CPU in the middle of a timed, concurrent run.)
"""

from __future__ import annotations

import json
import subprocess
import sys

CHILD = """
import json, sys
from agenteval.judge.base import AnswerItem
from agenteval.judge.llm import LLMJudge

judge = LLMJudge("m", base_url=sys.argv[1], api_key="k", cache=False, progress=None,
                 max_concurrency=2, mode=sys.argv[2])
judge.start_run()
before = set(sys.modules)
out = judge.judge_answers([AnswerItem(query="q", answer="a", ground_truth="t")])
print(json.dumps({"new": sorted(set(sys.modules) - before), "out": repr(out)}))
"""

LIBRARIES = ("aiohttp", "yarl", "multidict", "instructor", "openai", "tqdm", "httpx", "httpcore",
             "anyio", "h11", "ssl", "truststore", "pydantic")


def test_a_batch_imports_nothing_the_build_did_not(fake_server):
    for mode in ("json_schema", "tools"):
        done = subprocess.run([sys.executable, "-c", CHILD, fake_server.base_url, mode],
                              capture_output=True, text=True, check=True, timeout=120)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        assert "Verdict(score=0.75" in result["out"], result
        late = [m for m in result["new"] if m.split(".")[0].lstrip("_") in LIBRARIES]
        assert late == [], late
