"""The hostile-text sanitisers (agenteval._util.sanitize), checked against OWASP's CSV
injection rule, a terminal's view of control characters, and h5py's refusal of NUL."""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd
import pytest

from agenteval._util.sanitize import csv_cell, csv_frame, netcdf_safe, netcdf_text, terminal


@pytest.mark.parametrize("text", ["=1+2", "+1", "-1+cmd", "@SUM(A1)", "\t=1", "\r=1", "\uff1d1"])
def test_formula_prefixes_become_text(text):
    from agenteval._util.sanitize import FORMULA_PREFIXES

    cell = csv_cell(text)
    assert not cell.startswith(FORMULA_PREFIXES)
    assert cell == ("'" + text if text[0] != "\r" else "\\u000d=1")  # a CR is escaped


def test_plain_values_and_non_texts_are_unchanged():
    for value in ("plain", "a=b", "x-1", "", None, -3, 2.5, True):
        assert csv_cell(value) == value


def test_a_lone_carriage_return_cannot_start_a_row():
    """pandas leaves a cell with a bare CR unquoted; csv readers (and spreadsheets) end the row
    there, so '\\r=cmd' would put '=cmd' first in a new row."""
    frame = pd.DataFrame({"id": ["ok\r=cmd|' /C calc'!A0", "two\r\nlines"], "n": [1, 2]})
    rows = list(csv.reader(io.StringIO(csv_frame(frame).to_csv(index=False))))
    assert len(rows) == 3 and all(not c.startswith("=") for row in rows for c in row)
    assert rows[2][0] == "two\nlines"


def test_frames_cover_columns_categories_and_the_index():
    frame = pd.DataFrame({"agent": pd.Categorical(["=a", "b"]), "x": [-1.0, 2.0]},
                         index=pd.Index(["@g", "h"], name="group"))
    out = csv_frame(frame)
    assert list(out["agent"]) == ["'=a", "b"] and list(out.index) == ["'@g", "h"]
    assert list(out["x"]) == [-1.0, 2.0]  # numbers stay numbers
    assert list(frame["agent"]) == ["=a", "b"]  # the caller's frame is left alone


def test_terminal_escapes_what_a_terminal_would_act_on():
    text = "a\x1b[2Jb\x07c\x9bd\u202ee\ud800f\x00g"
    out = terminal(text)
    assert out == "a\\u001b[2Jb\\u0007c\\u009bd\\u202ee\\ud800f\\u0000g"
    out.encode("utf-8")  # printable: no lone surrogate left
    assert terminal("tab\tand\nnewline") == "tab\tand\nnewline"
    import json

    assert json.loads(terminal(json.dumps("x\u202ey", ensure_ascii=False))) == "x\u202ey"


def test_netcdf_takes_a_nul_in_coordinates(tmp_path):
    xr = pytest.importorskip("xarray")
    pytest.importorskip("h5netcdf")
    ds = xr.Dataset({"p": (("agent",), np.array([0.1, 0.2]))},
                    coords={"agent": np.array(["a\x00b", "c"], dtype=object)},
                    attrs={"note": "x\x00y"})
    with pytest.raises(ValueError, match="NUL"):  # what h5py does with the raw text
        ds.to_netcdf(tmp_path / "raw.nc", engine="h5netcdf")
    safe = netcdf_safe(ds)
    safe.to_netcdf(tmp_path / "safe.nc", engine="h5netcdf")
    back = xr.open_dataset(tmp_path / "safe.nc", engine="h5netcdf")
    assert list(back["agent"].values) == [netcdf_text("a\x00b"), "c"] == ["a\\u0000b", "c"]
    assert back.attrs["note"] == "x\\u0000y"
    assert list(ds["agent"].values) == ["a\x00b", "c"]  # the input is left alone
