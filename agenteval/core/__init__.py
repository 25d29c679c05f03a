"""Loading conversations: JSONL / JSON files, DataFrames, lists, OpenAI-style traces, retrievers,
tau-bench results and Inspect AI logs (read through Inspect's own reader, imported only then);
``select`` picks conversations by agent, task and count."""

from agenteval.core.inspect_logs import InspectLogRetriever, datasets_from_inspect_log
from agenteval.core.retriever import (
    DataFrameRetriever,
    JSONLRetriever,
    JSONRetriever,
    OpenAITraceRetriever,
    Retriever,
    load_datasets,
)
from agenteval.core.selection import select
from agenteval.core.taubench import TauBenchRetriever, datasets_from_taubench
from agenteval.core.traces import dataset_from_openai_messages

__all__ = [
    "DataFrameRetriever",
    "InspectLogRetriever",
    "JSONLRetriever",
    "JSONRetriever",
    "OpenAITraceRetriever",
    "Retriever",
    "TauBenchRetriever",
    "dataset_from_openai_messages",
    "datasets_from_inspect_log",
    "datasets_from_taubench",
    "load_datasets",
    "select",
]
