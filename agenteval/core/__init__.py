"""Loading conversations: JSONL / JSON files, DataFrames, lists, OpenAI-style traces, retrievers."""

from agenteval.core.retriever import (
    DataFrameRetriever,
    JSONLRetriever,
    JSONRetriever,
    OpenAITraceRetriever,
    Retriever,
    load_datasets,
)
from agenteval.core.traces import dataset_from_openai_messages

__all__ = [
    "DataFrameRetriever",
    "JSONLRetriever",
    "JSONRetriever",
    "OpenAITraceRetriever",
    "Retriever",
    "dataset_from_openai_messages",
    "load_datasets",
]
