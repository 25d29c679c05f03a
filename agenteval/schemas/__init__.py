"""Typed data models: inputs (common) and results (results)."""

from agenteval.schemas.common import (
    AgenticTrace,
    Batch,
    Dataset,
    ExpectedTool,
    GroundTruthAgentic,
    ToolCall,
)
from agenteval.schemas.results import AgenticMetric, ToolCorrectnessScore

__all__ = [
    "AgenticMetric",
    "AgenticTrace",
    "Batch",
    "Dataset",
    "ExpectedTool",
    "GroundTruthAgentic",
    "ToolCall",
    "ToolCorrectnessScore",
]
