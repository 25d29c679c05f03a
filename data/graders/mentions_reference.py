"""A small script grader (AgentV's stdin/stdout contract, standard library only).

Reads the case on stdin and checks that the answer (``output``) contains every number of the
reference answer (the text of ``expected_output``'s assistant message) and is not empty; writes
``{pass, score, reason, checks}``. With no reference to compare against it exits 1 with the
cause on stderr: an execution error (kept out of n and c), not a failed answer.

    agenteval run data/agentic_demo.jsonl --grader-cmd "python data/graders/mentions_reference.py"
"""

import json
import re
import sys

case = json.load(sys.stdin)
answer = case.get("output") or ""
reference = next((m.get("content") for m in case.get("expected_output") or []
                  if m.get("role") == "assistant" and isinstance(m.get("content"), str)), None)
if reference is None:
    print("no reference answer in expected_output", file=sys.stderr)
    sys.exit(1)

NUMBER = re.compile(r"-?\d+(?:[.,]\d+)?")
wanted = NUMBER.findall(reference)
found = set(NUMBER.findall(answer))
checks = [{"text": "the answer is not empty", "pass": bool(answer.strip()),
           "reason": f"{len(answer)} characters"}]
checks += [{"text": f"mentions {n}", "pass": n in found,
            "reason": "found in the answer" if n in found else "not in the answer"}
           for n in wanted]
passed = sum(c["pass"] for c in checks)
print(json.dumps({"pass": passed == len(checks), "score": passed / len(checks),
                  "reason": f"{passed}/{len(checks)} checks passed", "checks": checks}))
