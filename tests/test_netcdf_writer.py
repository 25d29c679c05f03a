"""The NetCDF writer (``_util.netcdf``, h5py alone) against h5netcdf, the reference writer of the
same netCDF-4 layout: object by object in HDF5 (names, order, shapes, types, values, attributes,
which dimension scales each variable's axes are attached to) and as xarray reads both files."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from agenteval import Agentic, BayesianMode
from agenteval._util.netcdf import _GROUPS, _SAMPLED, _coord_values, write_draws
from agenteval._util.sanitize import netcdf_text
from agenteval.results.inference_data import inference_layout
from tests.conftest import DEMO, ragged_suite

h5py = pytest.importorskip("h5py")
h5netcdf = pytest.importorskip("h5netcdf")
xr = pytest.importorskip("xarray")


def _reference_write(draws, path) -> None:
    """The same layout through h5netcdf's API (the writer agenteval used before)."""
    with h5netcdf.File(path, "w") as h5:
        aux_all = getattr(draws, "aux", None) or {}
        for name in _GROUPS:
            data = getattr(draws, name, None)
            if not data:
                continue
            aux = aux_all.get(name) or {}
            grp = h5.create_group(name)
            var_dims, sizes = {}, {}
            for var, values in data.items():
                arr = np.asarray(values)
                names = (["chain", "draw"] if name in _SAMPLED else []) + list(
                    draws.dims.get(var, []))
                names += [f"{var}_dim_{i}" for i in range(arr.ndim - len(names))]
                var_dims[var] = names[:arr.ndim]
                for dim, size in zip(var_dims[var], arr.shape):
                    sizes.setdefault(dim, size)
            for dim, size in sizes.items():
                grp.dimensions[dim] = size
                values = (np.arange(size, dtype=np.int64) if dim in ("chain", "draw")
                          or dim not in draws.coords else _coord_values(draws.coords[dim]))
                if values.dtype == object:
                    grp.create_variable(dim, (dim,), dtype=h5py.string_dtype())[...] = values
                else:
                    grp.create_variable(dim, (dim,), data=values)
            for coord, (cdims, cvalues) in aux.items():
                values = _coord_values(cvalues)
                if values.dtype == object:
                    grp.create_variable(coord, tuple(cdims),
                                        dtype=h5py.string_dtype())[...] = values
                else:
                    grp.create_variable(coord, tuple(cdims), data=values)
            for var, values in data.items():
                arr = np.asarray(values)
                out = grp.create_variable(var, tuple(var_dims[var]),
                                          data=arr.astype(np.int8) if arr.dtype == bool else arr)
                if arr.dtype == bool:
                    out.attrs["dtype"] = "bool"
                along = [c for c, (cdims, _) in aux.items() if set(cdims) <= set(var_dims[var])]
                if along:
                    out.attrs["coordinates"] = " ".join(along)
            for key, value in draws.attrs.items():
                value = value if isinstance(value, (int, float, str)) else str(value)
                grp.attrs[key] = netcdf_text(value) if isinstance(value, str) else value


def _value(v):
    if isinstance(v, np.ndarray) and v.dtype == object:
        return [x.decode() if isinstance(x, bytes) else x for x in v.ravel().tolist()]
    if isinstance(v, np.ndarray):
        return (str(v.dtype), v.shape, v.tobytes())   # bytes: NaN cells compare equal
    if isinstance(v, bytes):
        return v.decode()
    return (type(v).__name__, v.item() if hasattr(v, "item") else v)


def _structure(path) -> list:
    """Every object of the file in order, with its attributes; references as names."""
    out = []
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            attrs = {}
            for key, value in obj.attrs.items():
                if key == "_NCProperties":
                    continue   # the writer's name and versions
                if key == "DIMENSION_LIST":
                    value = [[f[r].name for r in refs] for refs in value]
                elif key == "REFERENCE_LIST":
                    value = sorted((f[ref].name, int(axis)) for ref, axis in value)
                else:
                    value = _value(value)
                attrs[key] = value
            if isinstance(obj, h5py.Dataset):
                data = obj[()]
                shown = _value(np.asarray(data, dtype=object) if obj.dtype.kind == "O" else data)
                out.append((name, "dataset", obj.shape, str(obj.dtype), h5py.check_string_dtype(
                    obj.dtype), shown, attrs, obj.id.get_create_plist().get_attr_creation_order()))
            else:
                out.append((name, "group", attrs,
                            obj.id.get_create_plist().get_link_creation_order()))
        f.visititems(visit)
        assert "_NCProperties" in f.attrs
        root = (f.id.get_create_plist().get_link_creation_order(),
                dict((k, _value(v)) for k, v in f.attrs.items() if k != "_NCProperties"))
    return [root, *out]


@pytest.fixture(scope="module")
def demo():
    return Agentic.run(str(DEMO), k=3, statistical_mode=BayesianMode(), progress=False)


def _same_as_reference(layout, tmp_path) -> None:
    ours, theirs = tmp_path / "ours.nc", tmp_path / "theirs.nc"
    write_draws(layout, ours)
    _reference_write(layout, theirs)
    assert _structure(ours) == _structure(theirs)
    for group in _GROUPS:
        if getattr(layout, group, None):
            with xr.open_dataset(ours, group=group, engine="h5netcdf") as a, \
                    xr.open_dataset(theirs, group=group, engine="h5netcdf") as b:
                xr.testing.assert_identical(a.load(), b.load())


@pytest.mark.parametrize("level", ["task", "conversation"])
def test_the_demo_levels_are_written_as_h5netcdf_writes_them(demo, level, tmp_path) -> None:
    _same_as_reference(inference_layout(demo, level=level), tmp_path)


def test_ragged_tasks_and_the_per_agent_draws_are_written_as_h5netcdf_writes_them(tmp_path) -> None:
    results = Agentic.run(ragged_suite(), k=2, statistical_mode=BayesianMode(), progress=False)
    _same_as_reference(inference_layout(results, level="task"), tmp_path / "task")
    _same_as_reference(results.posterior_draws(), tmp_path / "draws")


def test_odd_names_bools_and_a_coordinate_named_like_a_dimension(tmp_path) -> None:
    """Text with NUL and a lone surrogate, booleans, a dimension without coordinates; and an
    auxiliary coordinate named like a dimension of its group, which both writers refuse."""
    rng = np.random.default_rng(0)
    layout = SimpleNamespace(
        posterior={"rate": rng.random((2, 5, 3)), "flag": rng.random((2, 5, 3)) > 0.5,
                   "extra": rng.random((2, 5, 3, 2))},
        observed_data={"c": np.array([1, 2, 3])},
        dims={"rate": ["agent"], "flag": ["agent"], "extra": ["agent"], "c": ["agent"]},
        coords={"agent": ["a\x00b", "caf\u00e9", "x\udcff"]},
        aux={"posterior": {"label": (("agent",), np.array(["p", "q", "r"], dtype=object))},
             "observed_data": {"agent_dim": (("agent",), np.array([0, 1, 2]))}},
        attrs={"inference_library": "agenteval", "k": 3, "note": "\x00odd"})
    _same_as_reference(layout, tmp_path)
    clash = SimpleNamespace(
        posterior={"p": rng.random((1, 4, 2))}, dims={"p": ["agent"]},
        coords={"agent": ["a", "b"]}, attrs={},
        aux={"posterior": {"agent": (("agent",), np.array(["x", "y"], dtype=object))}})
    (tmp_path / "clash").mkdir()
    with pytest.raises(ValueError):
        _reference_write(clash, tmp_path / "clash" / "theirs.nc")
    with pytest.raises(ValueError):
        write_draws(clash, tmp_path / "clash" / "ours.nc")
    assert not list((tmp_path / "clash").glob("*ours*"))   # no half-written file is left
