"""Write data/rag_demo.jsonl: hand-written RAG cases, one per retrieval situation (no network).

    python data/make_rag_demo.py           # rewrite the file
    python data/make_rag_demo.py --check   # exit 1 if the committed file differs

The intended scores (offline judge; see data/README.md) are checked in tests/metrics/test_rag.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).with_name("rag_demo.jsonl")


def node(text: str, id: str, relevant: bool | None = None) -> dict:
    out = {"text": text, "id": id}
    if relevant is not None:
        out["relevant"] = relevant
    return out


CASES = [
    {"id": "perfect-ranking", "question": "How tall is the Eiffel Tower?",
     "expected_answer": "The Eiffel Tower is 330 metres tall.",
     "retrieval_context": [
         "The Eiffel Tower in Paris is 330 metres (1,083 ft) tall, including its antennas.",
         "Since the 2022 antenna installation, the tower's height has been 330 metres.",
         "The Eiffel Tower was designed by the engineering company of Gustave Eiffel and "
         "opened in 1889."]},
    {"id": "mixed-ranking", "question": "When did the Berlin Wall fall?",
     "expected_answer": "The Berlin Wall fell on 9 November 1989.",
     "retrieval_context": [
         "On 9 November 1989 the border crossings in Berlin opened and the Wall fell.",
         "The Berlin Wall was built in August 1961 to stop emigration to West Berlin.",
         "Crowds crossed the wall on the night of 9 November 1989, and demolition began in "
         "June 1990."]},
    {"id": "relevant-last",
     "question": "What is the boiling point of water at sea level in Fahrenheit?",
     "expected_answer": "Water boils at 212 degrees Fahrenheit at sea level.",
     "retrieval_context": [
         "Water freezes at 32 degrees Fahrenheit at sea level.",
         "The boiling point of a liquid falls as altitude rises.",
         "Sea level is the average height of the ocean's surface.",
         "At sea level water boils at 212 °F, which is 100 °C."]},
    {"id": "full-recall", "question": "Tell me about the Amazon river.",
     "expected_answer": "The Amazon flows through Brazil, Peru and Colombia. It discharges "
                        "about 209,000 cubic metres of water per second.",
     "retrieval_context": [
         node("The Amazon river flows through Peru, Colombia and Brazil before reaching the "
              "Atlantic.", "geo-101"),
         node("On average the Amazon discharges about 209,000 cubic metres of water per second "
              "into the ocean.", "geo-102")]},
    {"id": "partial-recall", "question": "What are the main facts about Mount Everest?",
     "expected_answer": "Mount Everest is 8,849 metres high. It lies on the border between "
                        "Nepal and China. It was first climbed in 1953.",
     "retrieval_context": [
         "Mount Everest, at 8,849 metres above sea level, is Earth's highest mountain.",
         "The mountain sits on the border between Nepal and the Tibet Autonomous Region of "
         "China."]},
    {"id": "zero-recall", "question": "Who wrote the novel One Hundred Years of Solitude?",
     "expected_answer": "The novel was written by Gabriel García Márquez. It was first "
                        "published in 1967.",
     "retrieval_context": [
         "Solitude is a state of being alone, which many writers have explored.",
         "One hundred years is a common span for centennial celebrations."]},
    {"id": "two-searches", "question": "Which city has more inhabitants, Lisbon or Porto?",
     "expected_output": [
         {"role": "assistant", "content": None, "tool_calls": [
             {"tool": "vector_search", "input": {"query": "Lisbon population"},
              "output": {"results": [
                  node("Lisbon is the capital of Portugal and lies on the Tagus estuary.",
                       "pt-1"),
                  node("The city of Lisbon has a population of about 545,000 inhabitants.",
                       "pt-2")]}},
             {"tool": "vector_search", "input": {"query": "Porto population"},
              "output": {"results": [
                  node("Porto, Portugal's second city, has about 232,000 inhabitants.", "pt-7"),
                  node("Porto is known for port wine, produced in the Douro valley.", "pt-8"),
                  node("The Dom Luís I bridge links Porto and Vila Nova de Gaia.", "pt-9")]}}]},
         {"role": "assistant",
          "content": "Lisbon has about 545,000 inhabitants, more than Porto. Porto has about "
                     "232,000 inhabitants."}]},
    {"id": "labelled-nodes", "question": "What is the capital of Australia?",
     "expected_answer": "Canberra is the capital of Australia.",
     "retrieval_context": [
         node("Sydney is Australia's largest city and its financial centre.", "doc-17", False),
         node("Canberra was chosen as the site of the national capital in 1908.", "doc-3", True),
         node("Melbourne hosted the federal parliament until 1927.", "doc-8", False),
         node("Parliament House in Canberra is the seat of the Australian government.",
              "doc-5", True)],
     "statements": [{"text": "Canberra is the capital of Australia.", "attributable": True},
                    {"text": "Canberra has been the capital since 1913.",
                     "attributable": False}]},
    {"id": "chat-input",
     "input": [{"role": "system", "content": "Answer from the retrieved documents."},
               {"role": "user", "content": "How many moons does Mars have?"}],
     "expected_output": "Mars has two moons, Phobos and Deimos.",
     "retrieval_context": [
         node("Mars has two small moons, Phobos and Deimos, discovered in 1877.", "astro-12"),
         node("Jupiter has 95 officially recognised moons.", "astro-40")]},
]


def render() -> str:
    return "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in CASES)


def main() -> int:
    text = render()
    if "--check" in sys.argv[1:]:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print("rag_demo.jsonl is up to date" if same else "rag_demo.jsonl differs from the generator")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({len(CASES)} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
