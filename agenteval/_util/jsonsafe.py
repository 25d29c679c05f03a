"""JSON without NaN: what the writers store (``json_safe``) and how the readers undo it for a
pydantic model (``restore_nan``)."""

from __future__ import annotations

import math
import sys
import types
import typing
from typing import Any

__all__ = ["json_safe", "restore_nan"]


def json_safe(obj: Any) -> Any:
    """NaN/inf -> None, numpy scalars -> Python, recursively."""
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    np = sys.modules.get("numpy")  # not imported: then nothing here is a numpy scalar
    if np is not None and isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def restore_nan(model: Any, data: Any) -> Any:
    """Undo :func:`json_safe` for a pydantic model: a ``null`` in a field typed plain ``float`` was NaN.

    Fields typed ``float | None`` keep ``None`` (both read as missing in a DataFrame).
    """
    from pydantic import BaseModel

    def walk(tp: Any, value: Any) -> Any:
        if tp is float:
            return math.nan if value is None else value
        if isinstance(tp, type) and issubclass(tp, BaseModel) and isinstance(value, dict):
            fields = tp.model_fields
            return {k: walk(fields[k].annotation, v) if k in fields else v for k, v in value.items()}
        origin = typing.get_origin(tp)
        if origin in (list, tuple) and isinstance(value, list):
            (item,) = typing.get_args(tp)[:1] or (Any,)
            return [walk(item, v) for v in value]
        if origin in (typing.Union, types.UnionType) and value is not None:
            models = [a for a in typing.get_args(tp)
                      if isinstance(a, type) and issubclass(a, BaseModel)]
            if len(models) == 1 and isinstance(value, dict):
                return walk(models[0], value)
        return value

    return walk(model, data)
