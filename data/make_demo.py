"""Write data/agentic_demo.jsonl: a deterministic, realistic demo of two tool-using agents.

Nine tasks (calculator, web search, SQL, flight/hotel booking, weather, unit conversion), each
attempted 3-5 times by each agent ("agent-gpt-small" and "agent-planner-v2"), so ``task_id``
groups repeated attempts. Every interaction is drawn from a seeded generator as either correct
(phrased in one of several ways) or one realistic failure: wrong tool parameters, a missing tool
call, an extra tool call, misordered calls where order matters, an answer that ignores the tool
result, or a plain wrong answer. No network; same seed, same bytes.

Also writes data/traces_demo.jsonl: five OpenAI-style transcripts (see data/README.md).

    python data/make_demo.py            # rewrite both files, print a summary
    python data/make_demo.py --check    # fail if the file on disk differs from the generator
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SEED = 20250624  # chosen so every failure mode occurs at least 3 times
OUT = Path(__file__).with_name("agentic_demo.jsonl")
TRACES_OUT = Path(__file__).with_name("traces_demo.jsonl")
AGENTS = ("agent-gpt-small", "agent-planner-v2")

# Per-agent weights of what happens in one interaction (renormalised over the modes that apply).
MODE_WEIGHTS = {
    "agent-gpt-small": {"correct": 0.42, "wrong_params": 0.09, "missing_tool": 0.09,
                        "extra_tool": 0.07, "misordered": 0.25, "ignores_tool": 0.08,
                        "wrong_answer": 0.08},
    "agent-planner-v2": {"correct": 0.82, "wrong_params": 0.03, "missing_tool": 0.02,
                         "extra_tool": 0.05, "misordered": 0.04, "ignores_tool": 0.03,
                         "wrong_answer": 0.04},
}

Call = tuple[str, dict[str, Any], Any]


@dataclass
class Turn:
    """One scripted interaction: the reference and the ways an agent can answer it."""

    query: str
    gt: str
    correct: list[str]
    wrong: list[str]
    calls: list[Call] = field(default_factory=list)
    ordered: bool = True
    bad_params: tuple[list[Call], str] | None = None
    memory: list[tuple[str, bool]] = field(default_factory=list)  # (answer, is it right)
    keep_when_missing: int = 0  # how many leading calls survive a "missing tool call"
    extra: Call | None = None


@dataclass
class Task:
    task_id: str
    context: str
    turns: list[Turn]
    language: str = "english"


def _tasks() -> list[Task]:
    search_results = [
        {"flight_number": "IB3120", "airline": "Iberia", "depart": "07:10", "price_eur": 142},
        {"flight_number": "FR6421", "airline": "Ryanair", "depart": "06:05", "price_eur": 155},
        {"flight_number": "LH1809", "airline": "Lufthansa", "depart": "09:45", "price_eur": 189},
    ]
    hotels = [
        {"hotel_id": "H-5521", "name": "Park Inn Alexanderplatz", "price_per_night_eur": 118},
        {"hotel_id": "H-7730", "name": "Motel One Berlin-Alexanderplatz", "price_per_night_eur": 94},
    ]
    flight_q = {"origin": "MAD", "destination": "BER", "date": "2025-07-03"}
    hotel_q = {"city": "Berlin", "near": "Alexanderplatz", "check_in": "2025-07-03", "nights": 2}
    sql_2024 = "order_date BETWEEN '2024-01-01' AND '2024-12-31'"
    loan = "200000 * (0.045 / 12) / (1 - (1 + 0.045 / 12) ** -360)"
    top_cat = ("SELECT category, SUM(revenue_usd) AS revenue FROM sales WHERE quarter = '{q}' "
               "GROUP BY category ORDER BY revenue DESC LIMIT 1")
    tdf = [{"title": "Vingegaard wins the 2023 Tour de France",
            "url": "https://example.org/cycling/tdf-2023-final",
            "snippet": "Jonas Vingegaard won the 2023 Tour de France, 7:29 ahead of Tadej Pogacar."}]
    return [
        Task("calc-discount", "You are a careful assistant. Use the calculator tool for arithmetic.", [
            Turn("What is 15% of 240?", "36",
                 correct=["36", "15% of 240 is 36.", "The result is 36."],
                 wrong=["The result is 38.", "15% of 240 is 3.6."],
                 calls=[("calculator", {"expression": "240 * 0.15"}, 36.0)],
                 bad_params=([("calculator", {"expression": "240 * 0.51"}, 122.4)],
                             "15% of 240 is 122.4."),
                 memory=[("15% of 240 is 36.", True), ("That's about 32.", False)],
                 extra=("web_search", {"query": "how to calculate a percentage"},
                        [{"title": "Percentage calculator", "url": "https://example.org/pct",
                          "snippet": "Multiply the number by the percentage over 100."}])),
            Turn("Now add 18 to that.", "54",
                 correct=["54", "36 + 18 = 54.", "That gives 54."],
                 wrong=["That gives 52.", "The total is 64."],
                 calls=[("calculator", {"expression": "36 + 18"}, 54.0)],
                 bad_params=([("calculator", {"expression": "36 + 81"}, 117.0)], "That gives 117."),
                 memory=[("That makes 54.", True), ("That makes 56.", False)]),
        ]),
        Task("weather-lisbon", "You are a travel assistant with weather and unit-conversion tools.", [
            Turn("What will the weather be like in Lisbon on 2025-06-12?", "Sunny, 23°C",
                 correct=["Sunny, 23°C", "Expect a sunny day in Lisbon with a high around 23°C.",
                          "It will be sunny and 23 °C, with a light breeze."],
                 wrong=["Rain is expected, with a high of 19°C.",
                        "Cloudy with showers, around 18°C."],
                 calls=[("get_weather", {"city": "Lisbon", "date": "2025-06-12"},
                         {"city": "Lisbon", "date": "2025-06-12", "temp_c": 23,
                          "condition": "sunny", "wind_kmh": 14})],
                 bad_params=([("get_weather", {"city": "Lisbon", "date": "2025-06-21"},
                               {"city": "Lisbon", "date": "2025-06-21", "temp_c": 27,
                                "condition": "partly cloudy", "wind_kmh": 9})],
                             "It will be partly cloudy, around 27°C."),
                 memory=[("Lisbon in June is usually sunny and around 26°C.", False)]),
            Turn("What is that in Fahrenheit?", "73.4°F",
                 correct=["73.4°F", "That is 73.4 °F.", "23°C is about 73.4 degrees Fahrenheit."],
                 wrong=["That is 71.6°F.", "Roughly 75 °F."],
                 calls=[("convert_units", {"value": 23, "from_unit": "C", "to_unit": "F"}, 73.4)],
                 bad_params=([("convert_units", {"value": 23, "from_unit": "F", "to_unit": "C"},
                               -5.0)], "That is -5.0 degrees."),
                 memory=[("That's roughly 75°F.", False), ("That is 73.4°F.", True)],
                 extra=("get_weather", {"city": "Lisbon", "date": "2025-06-12"},
                        {"city": "Lisbon", "date": "2025-06-12", "temp_c": 23,
                         "condition": "sunny", "wind_kmh": 14})),
        ]),
        Task("sql-orders", "You are a data analyst assistant. Answer from the `shop` SQLite database "
                           "via the run_sql tool.", [
            Turn("How many orders did customer 1042 place in 2024?", "17",
                 correct=["17", "Customer 1042 placed 17 orders in 2024.",
                          "They placed 17 orders in 2024."],
                 wrong=["Customer 1042 placed 12 orders in 2024.", "They placed 21 orders."],
                 calls=[("run_sql", {"query": "SELECT COUNT(*) FROM orders WHERE customer_id = "
                                              f"1042 AND {sql_2024}"},
                         {"columns": ["COUNT(*)"], "rows": [[17]]})],
                 bad_params=([("run_sql", {"query": "SELECT COUNT(*) FROM orders WHERE customer_id "
                                                    f"= 1024 AND {sql_2024}"},
                               {"columns": ["COUNT(*)"], "rows": [[9]]})],
                             "Customer 1042 placed 9 orders in 2024."),
                 memory=[("I can't see the order history, but probably around 20.", False)]),
            Turn("What was their total spend in 2024?", "2314.50 USD",
                 correct=["2314.50 USD", "Their total spend in 2024 was 2,314.50 USD.",
                          "They spent 2314.5 USD in total."],
                 wrong=["Their total spend in 2024 was 3,140.00 USD.", "About 1,980 USD."],
                 calls=[("run_sql", {"query": "SELECT SUM(total_usd) FROM orders WHERE "
                                              f"customer_id = 1042 AND {sql_2024}"},
                         {"columns": ["SUM(total_usd)"], "rows": [[2314.5]]})],
                 bad_params=([("run_sql", {"query": "SELECT SUM(total_usd) FROM orders WHERE "
                                                    "customer_id = 1042"},
                               {"columns": ["SUM(total_usd)"], "rows": [[5120.75]]})],
                             "Their total spend was 5,120.75 USD."),
                 memory=[("Roughly 2,000 USD.", False)],
                 extra=("run_sql", {"query": "SELECT * FROM customers WHERE id = 1042"},
                        {"columns": ["id", "name", "country"], "rows": [[1042, "Dana Ilić", "HR"]]})),
        ]),
        Task("flight-hotel-berlin", "You are a booking agent. Always search before booking; book "
                                    "the cheapest option unless told otherwise.", [
            Turn("Book the cheapest flight from Madrid to Berlin on 2025-07-03 for Ana Ruiz.", "IB3120",
                 correct=["IB3120", "Done! Ana Ruiz is booked on Iberia IB3120 (07:10, 142 EUR); "
                                    "confirmation K7Q2ZP.",
                          "Booked flight IB3120 for 142 EUR. Your confirmation code is K7Q2ZP."],
                 wrong=["Booked Lufthansa LH1809 at 09:45, confirmation M4TR8X.",
                        "You're on Ryanair FR6421, confirmation Q9WE2D."],
                 calls=[("search_flights", flight_q, search_results),
                        ("book_flight", {"flight_number": "IB3120", "passenger": "Ana Ruiz"},
                         {"status": "confirmed", "confirmation": "K7Q2ZP"})],
                 bad_params=([("search_flights", flight_q, search_results),
                              ("book_flight", {"flight_number": "LH1809", "passenger": "Ana Ruiz"},
                               {"status": "confirmed", "confirmation": "M4TR8X"})],
                             "Booked Lufthansa LH1809 (189 EUR), confirmation M4TR8X."),
                 memory=[("The cheapest option is IB3120 at 142 EUR. Shall I book it?", True)],
                 keep_when_missing=1),
            Turn("Also book the cheapest hotel near Alexanderplatz for 2 nights from that day.",
                 "Motel One Berlin-Alexanderplatz",
                 correct=["Motel One Berlin-Alexanderplatz",
                          "Booked 2 nights at Motel One Berlin-Alexanderplatz (188 EUR total), "
                          "confirmation HX88213.",
                          "You're staying at the Motel One Berlin-Alexanderplatz, 94 EUR a night."],
                 wrong=["Booked 2 nights at Park Inn Alexanderplatz (236 EUR total).",
                        "Booked the Hotel Indigo Berlin for 2 nights."],
                 calls=[("search_hotels", hotel_q, hotels),
                        ("book_hotel", {"hotel_id": "H-7730", "check_in": "2025-07-03", "nights": 2},
                         {"status": "confirmed", "confirmation": "HX88213", "total_eur": 188})],
                 bad_params=([("search_hotels", hotel_q, hotels),
                              ("book_hotel", {"hotel_id": "H-5521", "check_in": "2025-07-03",
                                              "nights": 2},
                               {"status": "confirmed", "confirmation": "HX41907", "total_eur": 236})],
                             "Booked 2 nights at Park Inn Alexanderplatz (236 EUR total), "
                             "confirmation HX41907."),
                 memory=[("Motel One Berlin-Alexanderplatz is the cheapest; want me to book it?",
                          True)],
                 keep_when_missing=1),
            Turn("Which airline am I flying with?", "Iberia",
                 correct=["Iberia", "You're flying with Iberia.", "Iberia, flight IB3120."],
                 wrong=["You're flying with Lufthansa.", "Ryanair."]),
        ]),
        Task("web-tour-de-france", "You are a research assistant. Use web_search for facts.", [
            Turn("Who won the 2023 Tour de France?", "Jonas Vingegaard",
                 correct=["Jonas Vingegaard", "Jonas Vingegaard won the 2023 Tour de France.",
                          "It was Jonas Vingegaard, ahead of Tadej Pogacar."],
                 wrong=["Tadej Pogacar won the 2023 Tour de France.", "Egan Bernal."],
                 calls=[("web_search", {"query": "2023 Tour de France winner"}, tdf)],
                 bad_params=([("web_search", {"query": "Tour de France winner"},
                               [{"title": "Pogacar wins the 2024 Tour de France",
                                 "url": "https://example.org/cycling/tdf-2024-final",
                                 "snippet": "Tadej Pogacar won the 2024 Tour de France."}])],
                             "Tadej Pogacar won it."),
                 memory=[("Jonas Vingegaard won it.", True), ("Tadej Pogacar won it.", False)]),
            Turn("By what margin did he win?", "7:29",
                 correct=["7:29", "He won by 7 minutes 29 seconds.", "A margin of 7:29."],
                 wrong=["He won by 2 minutes 43 seconds.", "About 5 minutes."]),
        ]),
        Task("unidades-maraton", "Eres un asistente que usa la herramienta convert_units para "
                                 "conversiones de unidades.", [
            Turn("¿Cuántos kilómetros son 26.2 millas?", "42.16 km",
                 correct=["42.16 km", "26.2 millas son unos 42.2 km.",
                          "Son aproximadamente 42.16 km."],
                 wrong=["Son 16.28 km.", "Unos 40 km."],
                 calls=[("convert_units", {"value": 26.2, "from_unit": "mi", "to_unit": "km"},
                         42.165)],
                 bad_params=([("convert_units", {"value": 26.2, "from_unit": "km", "to_unit": "mi"},
                               16.28)], "Son 16.28 km."),
                 memory=[("Son unos 42.16 km.", True), ("Son unos 40 km.", False)]),
            Turn("¿Y 10 millas?", "16.09 km",
                 correct=["16.09 km", "10 millas son 16.09 km.", "Aproximadamente 16.1 km."],
                 wrong=["Son 6.21 km.", "Unos 18 km."],
                 calls=[("convert_units", {"value": 10, "from_unit": "mi", "to_unit": "km"},
                         16.093)],
                 bad_params=([("convert_units", {"value": 10, "from_unit": "km", "to_unit": "mi"},
                               6.214)], "Son 6.21 km."),
                 memory=[("Unos 16 km.", False)]),
        ], language="spanish"),
        Task("sql-top-category", "You are a data analyst assistant. Answer from the `shop` SQLite "
                                 "database via the run_sql tool.", [
            Turn("Which product category had the highest revenue in 2025-Q1?", "Outdoor gear",
                 correct=["Outdoor gear",
                          "Outdoor gear had the highest revenue in 2025-Q1 (184,320 USD).",
                          "The top category was outdoor gear."],
                 wrong=["Home & kitchen led revenue last quarter.", "Electronics."],
                 calls=[("run_sql", {"query": top_cat.format(q="2025-Q1")},
                         {"columns": ["category", "revenue"], "rows": [["Outdoor gear", 184320.0]]})],
                 bad_params=([("run_sql", {"query": top_cat.format(q="2024-Q1")},
                               {"columns": ["category", "revenue"],
                                "rows": [["Electronics", 201450.0]]})],
                             "Electronics had the highest revenue (201,450 USD)."),
                 memory=[("Probably electronics; it usually leads.", False)],
                 extra=("run_sql", {"query": "SELECT DISTINCT category FROM sales"},
                        {"columns": ["category"],
                         "rows": [["Outdoor gear"], ["Electronics"], ["Home & kitchen"]]})),
        ]),
        Task("calc-mortgage", "You are a careful assistant. Use the calculator tool for arithmetic.", [
            Turn("What is the monthly payment on a 200000 loan at 4.5% a year over 30 years?",
                 "1013.37",
                 correct=["1013.37", "The monthly payment is about 1,013.37.",
                          "You would pay 1013.37 per month."],
                 wrong=["About 1,250 per month.", "The monthly payment is 555.56."],
                 calls=[("calculator", {"expression": loan}, 1013.37)],
                 bad_params=([("calculator", {"expression": "200000 * 0.045 / (1 - (1 + 0.045) ** "
                                                            "-360)"}, 9000.0)],
                             "The monthly payment is 9,000.00."),
                 memory=[("Roughly 1,100 per month.", False)],
                 extra=("web_search", {"query": "current 30 year mortgage rates"},
                        [{"title": "Mortgage rates today", "url": "https://example.org/rates",
                          "snippet": "The average 30-year fixed rate is 6.1%."}])),
        ]),
        Task("weather-compare", "You are a travel assistant with a weather tool.", [
            Turn("Which will be warmer on 2025-06-12, Oslo or Rome?", "Rome",
                 correct=["Rome", "Rome is warmer: 29°C versus 14°C in Oslo.", "Rome, at 29°C."],
                 wrong=["Oslo will be warmer, about 24°C.", "Oslo."],
                 calls=[("get_weather", {"city": "Oslo", "date": "2025-06-12"},
                         {"city": "Oslo", "date": "2025-06-12", "temp_c": 14, "condition": "cloudy",
                          "wind_kmh": 21}),
                        ("get_weather", {"city": "Rome", "date": "2025-06-12"},
                         {"city": "Rome", "date": "2025-06-12", "temp_c": 29, "condition": "sunny",
                          "wind_kmh": 8})],
                 ordered=False,
                 bad_params=([("get_weather", {"city": "Oslo", "date": "2025-06-12"},
                               {"city": "Oslo", "date": "2025-06-12", "temp_c": 14,
                                "condition": "cloudy", "wind_kmh": 21}),
                              ("get_weather", {"city": "Roma, Texas", "date": "2025-06-12"},
                               {"error": "city not found"})],
                             "I could only get Oslo: 14°C and cloudy."),
                 memory=[("Oslo is 14°C and cloudy today.", False)],
                 keep_when_missing=1),
            Turn("How big is the difference?", "15°C",
                 correct=["15°C", "The difference is 15°C.", "Rome is 15 degrees warmer."],
                 wrong=["About 11 degrees.", "Roughly 20°C."]),
        ]),
    ]


def _modes(turn: Turn) -> list[str]:
    if not turn.calls:
        return ["correct", "wrong_answer"]
    modes = ["correct", "missing_tool", "ignores_tool", "wrong_answer"]
    if turn.bad_params:
        modes.append("wrong_params")
    if turn.extra:
        modes.append("extra_tool")
    if turn.ordered and len(turn.calls) >= 2:
        modes.append("misordered")
    return modes


def _tool(call: Call, step: int) -> dict[str, Any]:
    name, params, result = call
    return {"tool_name": name, "parameters": params, "result": result, "step": step}


def _interaction(turn: Turn, mode: str, rng: random.Random, qa_id: str
                 ) -> tuple[dict[str, Any], dict[str, Any]]:
    """One Batch dict and its label (mode, answer_ok, tools_ok) by construction."""
    calls: list[Call] = list(turn.calls)
    answer_ok, tools_ok, uses = True, True, True
    if mode == "correct":
        answer = rng.choice(turn.correct)
        if not turn.ordered:
            rng.shuffle(calls)
    elif mode == "wrong_answer":
        answer, answer_ok = rng.choice(turn.wrong), False
    elif mode == "ignores_tool":
        answer, answer_ok, uses = rng.choice(turn.wrong), False, False
    elif mode == "wrong_params":
        assert turn.bad_params is not None
        calls, answer = turn.bad_params
        calls, answer_ok, tools_ok = list(calls), False, False
    elif mode == "missing_tool":
        calls = calls[: turn.keep_when_missing]
        answer, answer_ok = rng.choice(turn.memory)
        tools_ok, uses = False, bool(calls)
    elif mode == "extra_tool":
        assert turn.extra is not None
        calls.insert(rng.randrange(len(calls) + 1), turn.extra)
        answer, tools_ok = rng.choice(turn.correct), False
    elif mode == "misordered":
        calls.reverse()
        answer, tools_ok = rng.choice(turn.correct), False
    else:  # pragma: no cover
        raise ValueError(mode)

    batch: dict[str, Any] = {"qa_id": qa_id, "query": turn.query, "assistant": answer,
                             "ground_truth_assistant": turn.gt}
    if turn.calls:
        batch["agentic"] = {"tools_used": [_tool(c, i) for i, c in enumerate(calls, start=1)],
                            "final_answer_uses_tools": uses}
        batch["ground_truth_agentic"] = {
            "expected_tools": [
                {"tool_name": name, "parameters": params, **({"step": i} if turn.ordered else {})}
                for i, (name, params, _) in enumerate(turn.calls, start=1)
            ],
            "tool_sequence_matters": turn.ordered,
        }
    else:
        batch["agentic"] = None
        batch["ground_truth_agentic"] = None
    label = {"mode": mode, "answer_ok": answer_ok, "tools_ok": tools_ok,
             "correct": answer_ok and tools_ok}
    return batch, label


def build_with_labels(seed: int = SEED) -> tuple[list[dict[str, Any]], list[list[dict[str, Any]]]]:
    """The demo conversations and, per conversation, each interaction's intended label."""
    rng = random.Random(seed)
    records, labels = [], []
    for task in _tasks():
        for agent in AGENTS:
            short = agent.removeprefix("agent-")
            for attempt in range(1, rng.randint(3, 5) + 1):
                conversation, conv_labels = [], []
                for n, turn in enumerate(task.turns, start=1):
                    modes = _modes(turn)
                    weights = [MODE_WEIGHTS[agent][m] for m in modes]
                    mode = rng.choices(modes, weights=weights)[0]
                    batch, label = _interaction(turn, mode, rng, f"q{n}")
                    conversation.append(batch)
                    conv_labels.append(label)
                records.append({
                    "session_id": f"{task.task_id}-{short}-{attempt}",
                    "assistant_id": agent,
                    "language": task.language,
                    "context": task.context,
                    "conversation": conversation,
                    "task_id": task.task_id,
                })
                labels.append(conv_labels)
    return records, labels


def build(seed: int = SEED) -> list[dict[str, Any]]:
    """The demo conversations (Dataset dicts)."""
    return build_with_labels(seed)[0]


def _call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}


def build_traces() -> list[dict[str, Any]]:
    """Five OpenAI-style transcripts (the ``traces_demo.jsonl`` format), written by hand."""
    weather = {"city": "Lisbon", "date": "2025-06-12", "temp_c": 23, "condition": "sunny"}
    flights = [{"flight_number": "IB3120", "price_eur": 142},
               {"flight_number": "LH1809", "price_eur": 189}]
    return [
        {"session_id": "trace-weather-1", "assistant_id": "agent-planner-v2",
         "task_id": "weather-lisbon",
         "messages": [
             {"role": "system", "content": "You are a travel assistant with a weather tool."},
             {"role": "user", "content": "What will the weather be like in Lisbon on 2025-06-12?"},
             {"role": "assistant", "content": None, "tool_calls": [
                 _call("call_1", "get_weather", {"city": "Lisbon", "date": "2025-06-12"})]},
             {"role": "tool", "tool_call_id": "call_1", "content": json.dumps(weather)},
             {"role": "assistant", "content": "Expect a sunny day in Lisbon, around 23°C."},
         ],
         "references": [{"ground_truth_assistant": "Sunny, 23°C",
                         "expected_tools": [{"tool_name": "get_weather",
                                             "parameters": {"city": "Lisbon",
                                                            "date": "2025-06-12"}}]}]},
        {"session_id": "trace-calc-1", "assistant_id": "agent-gpt-small", "task_id": "calc-discount",
         "messages": [
             {"role": "system", "content": "Use the calculator tool for arithmetic."},
             {"role": "user", "content": [{"type": "text", "text": "What is 15% of 240?"}]},
             {"role": "assistant", "content": "Let me compute that.", "tool_calls": [
                 _call("c1", "calculator", {"expression": "240 * 0.15"})]},
             {"role": "tool", "tool_call_id": "c1", "content": "36.0"},
             {"role": "assistant", "content": [{"type": "text", "text": "The result is 36."}]},
             {"role": "user", "content": "Now add 18 to that."},
             {"role": "assistant", "content": "That makes 56."},
         ],
         "references": [
             {"ground_truth_assistant": "36",
              "expected_tools": [{"tool_name": "calculator",
                                  "parameters": {"expression": "240 * 0.15"}}]},
             {"ground_truth_assistant": "54",
              "expected_tools": [{"tool_name": "calculator",
                                  "parameters": {"expression": "36 + 18"}}]},
         ]},
        {"session_id": "trace-flight-1", "assistant_id": "agent-planner-v2",
         "task_id": "flight-hotel-berlin",
         "messages": [
             {"role": "system", "content": "You are a booking agent. Always search before booking."},
             {"role": "user", "content": "Book the cheapest flight from Madrid to Berlin on "
                                         "2025-07-03 for Ana Ruiz."},
             {"role": "assistant", "content": None, "tool_calls": [
                 _call("call_a", "search_flights",
                       {"origin": "MAD", "destination": "BER", "date": "2025-07-03"})]},
             {"role": "tool", "tool_call_id": "call_a", "content": json.dumps(flights)},
             {"role": "assistant", "content": None, "tool_calls": [
                 _call("call_b", "book_flight", {"flight_number": "IB3120", "passenger": "Ana Ruiz"})]},
             {"role": "tool", "tool_call_id": "call_b",
              "content": json.dumps({"status": "confirmed", "confirmation": "K7Q2ZP"})},
             {"role": "assistant", "content": "Booked Iberia IB3120 for 142 EUR, confirmation K7Q2ZP."},
         ],
         "references": [{"ground_truth_assistant": "IB3120", "tool_sequence_matters": True,
                         "expected_tools": [
                             {"tool_name": "search_flights", "step": 1,
                              "parameters": {"origin": "MAD", "destination": "BER",
                                             "date": "2025-07-03"}},
                             {"tool_name": "book_flight", "step": 2,
                              "parameters": {"flight_number": "IB3120", "passenger": "Ana Ruiz"}}]}]},
        {"session_id": "trace-search-1", "assistant_id": "agent-gpt-small",
         "task_id": "web-tour-de-france",
         "messages": [
             {"role": "user", "content": "Who won the 2023 Tour de France?"},
             {"role": "assistant", "content": None, "tool_calls": [
                 _call("s1", "web_search", {"query": "2023 Tour de France winner"})]},
             {"role": "tool", "tool_call_id": "s1",
              "content": "Jonas Vingegaard won the 2023 Tour de France, 7:29 ahead of Tadej Pogacar."},
             {"role": "assistant", "content": "Tadej Pogacar won the 2023 Tour de France."},
             {"role": "user", "content": "By what margin did he win?"},
             {"role": "assistant", "content": "He won by 7 minutes 29 seconds."},
         ],
         "references": [
             {"ground_truth_assistant": "Jonas Vingegaard",
              "expected_tools": [{"tool_name": "web_search",
                                  "parameters": {"query": "2023 Tour de France winner"}}]},
             {"ground_truth_assistant": "7:29"},
         ]},
        {"session_id": "trace-weather-compare-1", "assistant_id": "agent-planner-v2",
         "task_id": "weather-compare", "language": "english",
         "messages": [
             {"role": "system", "content": "You are a travel assistant with a weather tool."},
             {"role": "user", "content": "Which will be warmer on 2025-06-12, Oslo or Rome?"},
             {"role": "assistant", "content": None, "tool_calls": [
                 _call("w1", "get_weather", {"city": "Rome", "date": "2025-06-12"}),
                 _call("w2", "get_weather", {"city": "Oslo", "date": "2025-06-12"})]},
             {"role": "tool", "tool_call_id": "w2", "content": json.dumps(
                 {"city": "Oslo", "temp_c": 14, "condition": "cloudy"})},
             {"role": "tool", "tool_call_id": "w1", "content": json.dumps(
                 {"city": "Rome", "temp_c": 29, "condition": "sunny"})},
             {"role": "assistant", "content": "Rome is warmer: 29°C versus 14°C in Oslo."},
             {"role": "user", "content": "How much warmer?"},
             {"role": "assistant", "content": "Rome will be 15 degrees warmer than Oslo."},
         ],
         "references": [
             {"ground_truth_assistant": "Rome", "tool_sequence_matters": False,
              "expected_tools": [
                  {"tool_name": "get_weather", "parameters": {"city": "Oslo", "date": "2025-06-12"}},
                  {"tool_name": "get_weather", "parameters": {"city": "Rome", "date": "2025-06-12"}}]},
             {"ground_truth_assistant": "15°C"},
         ]},
    ]


def render(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def summary(records: list[dict[str, Any]], labels: list[list[dict[str, Any]]]) -> str:
    lines = [f"{len(records)} conversations, {sum(len(r['conversation']) for r in records)} "
             f"interactions, {len({r['task_id'] for r in records})} tasks"]
    for agent in AGENTS:
        idx = [i for i, r in enumerate(records) if r["assistant_id"] == agent]
        full = sum(all(lab["correct"] for lab in labels[i]) for i in idx)
        modes = Counter(lab["mode"] for i in idx for lab in labels[i])
        lines.append(f"{agent}: {len(idx)} conversations, {full} fully correct "
                     f"({full / len(idx):.0%}); modes {dict(sorted(modes.items()))}")
    full = sum(all(lab["correct"] for lab in conv) for conv in labels)
    lines.append(f"overall fully correct: {full}/{len(records)} ({full / len(records):.0%})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--traces-out", type=Path, default=TRACES_OUT)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--check", action="store_true", help="verify the file, do not write")
    args = parser.parse_args(argv)
    records, labels = build_with_labels(args.seed)
    outputs = {args.out: render(records), args.traces_out: render(build_traces())}
    if args.check:
        stale = [p for p, text in outputs.items()
                 if not p.exists() or p.read_text(encoding="utf-8") != text]
        for path in outputs:
            print(f"{path}: {'DIFFERS from the generator' if path in stale else 'up to date'}")
        return 1 if stale else 0
    for path, text in outputs.items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    print(summary(records, labels))
    return 0


if __name__ == "__main__":
    sys.exit(main())
