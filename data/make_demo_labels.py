"""Write agentic_demo_labels.jsonl: human labels for a seeded random half of the demo's
interactions, where the "human" is the demo's references (the offline judge's verdict: the
answer matches the reference and the tools are right). ``--check`` compares with the file.

    python data/make_demo_labels.py [--check]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE / "agentic_demo_labels.jsonl"


def build() -> str:
    from agenteval import Agentic

    results = Agentic.run(str(HERE / "agentic_demo.jsonl"), None, 2)
    rng = np.random.default_rng(2026)
    lines = []
    for m in results:
        for r in m.interactions:
            if rng.random() < 0.5:
                lines.append(json.dumps({"session_id": m.session_id, "qa_id": r.qa_id,
                                         "label": int(bool(r.is_correct)), "rater": "references"}))
    return "".join(line + "\n" for line in lines)


if __name__ == "__main__":
    text = build()
    if "--check" in sys.argv:
        sys.exit(0 if OUT.read_text(encoding="utf-8") == text else 1)
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({text.count(chr(10))} labels)")
