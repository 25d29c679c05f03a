"""Metrics: verdicts and tool scoring -> per-conversation results (agentic, tools, arguments,
evidence, outcomes) and the RAG metrics (rag)."""
