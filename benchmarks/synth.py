"""Seeded synthetic suites with DISTINCT texts, for the offline pipeline benchmarks.

Every query, answer, reference and tool result carries its own numbers and names, so no cache of
parsed texts can turn the benchmark into a best case (the demo replicated N times repeats the same
few texts). The shape follows the demo data: 5 interactions per conversation, a calculator or
lookup call per interaction with a logged result, expected tools, and a mix of right, wrong,
rounded and percentage answers.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

CITIES = ["Paris", "Lima", "Oslo", "Quito", "Dakar", "Hanoi", "Perth", "Porto", "Riga", "Turin"]
ITEMS = ["laptop", "bicycle", "kettle", "printer", "desk", "monitor", "lamp", "camera"]


def _interaction(rng: random.Random, conv: int, j: int) -> dict:
    kind = rng.randrange(4)
    uid = f"{conv}-{j}"
    if kind == 0:  # arithmetic with a calculator
        a, b = rng.randint(100, 99_999), rng.randint(2, 999)
        value = a * b
        right = rng.random() < 0.75
        shown = value if right else value + rng.randint(1, 50)
        query = f"Order {uid}: what is {a:,} times {b}?"
        answer = f"The total for order {uid} is {shown:,}."
        truth = f"{value:,}"
        used = [{"tool_name": "calculator", "parameters": {"expression": f"{a} * {b}"},
                 "result": value, "step": 1}]
        expected = [{"tool_name": "calculator", "parameters": {"expression": f"{a} * {b}"},
                     "step": 1}]
    elif kind == 1:  # percentage, answered rounded
        base, pct = rng.randint(1_000, 500_000), rng.randint(1, 99)
        value = base * pct / 100
        query = f"Invoice {uid}: what is {pct}% of ${base:,}?"
        answer = f"That comes to about ${value:,.1f} ({pct}% of ${base:,})."
        truth = f"${value:,.2f}"
        used = [{"tool_name": "calculator", "parameters": {"expression": f"{base} * {pct} / 100"},
                 "result": {"value": value, "unit": "USD", "note": f"computed for invoice {uid}"},
                 "step": 1}]
        expected = [{"tool_name": "calculator",
                     "parameters": {"expression": f"{base} * {pct} / 100"}, "step": 1}]
    elif kind == 2:  # a lookup with a text result
        city = rng.choice(CITIES)
        temp = round(rng.uniform(-20, 40), 1)
        station = f"station {rng.randint(1000, 9999)}-{uid}"
        query = f"What is the temperature in {city} now (request {uid})?"
        right = rng.random() < 0.7
        answer = (f"It is {temp}°C in {city}, reported by {station}." if right
                  else f"It is about {temp + 3:.0f}°C in {city}.")
        truth = f"{temp}°C"
        used = [{"tool_name": "weather", "parameters": {"city": city},
                 "result": {"city": city, "temperature_c": temp, "station": station,
                            "summary": f"Observed at {station} in {city}: {temp} degrees, "
                                       f"humidity {rng.randint(10, 99)}%."},
                 "step": 1}]
        expected = [{"tool_name": "weather", "parameters": {"city": city}, "step": 1}]
    else:  # a price search, two calls, sometimes the wrong tool
        item = rng.choice(ITEMS)
        price = round(rng.uniform(5, 3000), 2)
        sku = f"SKU-{rng.randint(10**5, 10**6)}-{uid}"
        query = f"How much is the {item} {sku}, and in euros at 0.9{j}?"
        eur = round(price * (0.9 + j / 100), 2)
        answer = f"The {item} costs ${price:,.2f}, which is {eur:,.2f} euros."
        truth = f"${price:,.2f}, {eur:,.2f} euros"
        tool = "price_lookup" if rng.random() < 0.8 else "web_search"
        used = [{"tool_name": tool, "parameters": {"sku": sku},
                 "result": [{"sku": sku, "price": price, "currency": "USD",
                             "title": f"{item.title()} model {rng.randint(100, 999)}"}],
                 "step": 1},
                {"tool_name": "calculator",
                 "parameters": {"expression": f"{price} * 0.9{j}"}, "result": eur, "step": 2}]
        expected = [{"tool_name": "price_lookup", "parameters": {"sku": sku}, "step": 1},
                    {"tool_name": "calculator",
                     "parameters": {"expression": f"{price} * 0.9{j}"}, "step": 2}]
    return {"qa_id": f"q{j + 1}", "query": query, "assistant": answer,
            "ground_truth_assistant": truth,
            "agentic": {"tools_used": used, "final_answer_uses_tools": True},
            "ground_truth_agentic": {"expected_tools": expected, "tool_sequence_matters": True}}


def iter_conversations(n: int, *, interactions: int = 5, seed: int = 0) -> Iterator[dict]:
    """``n`` conversations of ``interactions`` interactions each, 3 agents, tasks repeating,
    one at a time (a million of them as dicts would take gigabytes)."""
    rng = random.Random(seed)
    for conv in range(n):
        yield {
            "session_id": f"s{conv}", "assistant_id": f"agent-{conv % 3}",
            "task_id": f"task-{conv // 3 % max(1, n // 12)}", "language": "english",
            "context": "You are a careful assistant with a calculator, weather and price tools.",
            "conversation": [_interaction(rng, conv, j) for j in range(interactions)],
        }


def conversations(n: int, *, interactions: int = 5, seed: int = 0) -> list[dict]:
    """``n`` conversations of ``interactions`` interactions each, 3 agents, tasks repeating."""
    return list(iter_conversations(n, interactions=interactions, seed=seed))


def write(path: Path, n: int, *, interactions: int = 5, seed: int = 0) -> int:
    """Write a suite as JSONL (a conversation at a time); return the number of interactions."""
    with path.open("w", encoding="utf-8") as fh:
        for row in iter_conversations(n, interactions=interactions, seed=seed):
            fh.write(json.dumps(row) + "\n")
    return n * interactions
