"""Write posterior draws as an ArviZ-readable NetCDF file with h5netcdf alone.

``arviz.from_netcdf`` reads one NetCDF-4 group per InferenceData group (posterior, prior,
observed_data, ...), each an xarray Dataset with its dimensions and coordinate variables. This
module writes exactly that layout from plain arrays (``statistical.draws.PosteriorDraws``)
without importing arviz or xarray, whose imports (arviz loads its plotting modules and compiles
numba functions) cost several times the whole evaluation of a small suite. Variables are not
compressed (posterior draws are random floats: zlib saves a few per cent and costs more than the
write); the file is written next to its target and renamed into place, so a reader never sees
half a file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from agenteval._util.sanitize import netcdf_text

__all__ = ["write_draws"]

_GROUPS = ("posterior", "prior", "log_likelihood", "posterior_predictive", "observed_data",
           "constant_data", "sample_stats")
_SAMPLED = ("posterior", "prior", "log_likelihood", "posterior_predictive", "sample_stats")


def _coord_values(values: Any) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype.kind in ("U", "O", "S"):
        return np.asarray([netcdf_text(str(v)) for v in arr.ravel().tolist()],   # no NUL
                          dtype=object).reshape(arr.shape)
    return arr


def _write_group(h5: Any, name: str, data: dict[str, np.ndarray], dims: dict[str, list[str]],
                 coords: dict[str, Any], attrs: dict[str, Any],
                 aux: dict[str, tuple[tuple[str, ...], Any]] | None = None) -> None:
    import h5py

    grp = h5.create_group(name)
    sampled = name in _SAMPLED
    var_dims: dict[str, list[str]] = {}
    sizes: dict[str, int] = {}
    for var, values in data.items():
        arr = np.asarray(values)
        names = (["chain", "draw"] if sampled else []) + list(dims.get(var, []))
        names += [f"{var}_dim_{i}" for i in range(arr.ndim - len(names))]
        var_dims[var] = names[:arr.ndim]
        for dim, size in zip(var_dims[var], arr.shape):
            sizes.setdefault(dim, size)
    for dim, size in sizes.items():
        grp.dimensions[dim] = size
        if dim in ("chain", "draw") or dim not in coords:
            values = np.arange(size, dtype=np.int64)
        else:
            values = _coord_values(coords[dim])
        if values.dtype == object:
            var = grp.create_variable(dim, (dim,), dtype=h5py.string_dtype())
            var[...] = values
        else:
            grp.create_variable(dim, (dim,), data=values)
    for coord, (cdims, cvalues) in (aux or {}).items():   # coordinates that are not dimensions
        values = _coord_values(cvalues)
        if values.dtype == object:
            cvar = grp.create_variable(coord, tuple(cdims), dtype=h5py.string_dtype())
            cvar[...] = values
        else:
            grp.create_variable(coord, tuple(cdims), data=values)
    for var, values in data.items():
        arr = np.asarray(values)
        if arr.dtype == bool:
            arr = arr.astype(np.int8)   # as xarray stores booleans (decoded back on read)
            out = grp.create_variable(var, tuple(var_dims[var]), data=arr)
            out.attrs["dtype"] = "bool"
        else:
            out = grp.create_variable(var, tuple(var_dims[var]), data=arr)
        # CF: the non-index coordinates along this variable's dims (xarray reads them back)
        along = [coord for coord, (cdims, _) in (aux or {}).items()
                 if set(cdims) <= set(var_dims[var])]
        if along:
            out.attrs["coordinates"] = " ".join(along)
    for key, value in attrs.items():
        value = value if isinstance(value, (int, float, str)) else str(value)
        grp.attrs[key] = netcdf_text(value) if isinstance(value, str) else value


def write_draws(draws: Any, path: str | Path) -> str:
    """Write a ``PosteriorDraws`` or an ``idata_layout.Layout`` to ``path`` (NetCDF-4, one group
    per InferenceData group, with the layout's non-index coordinates)."""
    import h5netcdf

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        with h5netcdf.File(tmp, "w") as h5:
            aux = getattr(draws, "aux", None) or {}
            for name in _GROUPS:
                data = getattr(draws, name, None)
                if data:
                    _write_group(h5, name, data, draws.dims, draws.coords, draws.attrs,
                                 aux.get(name))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)   # mkstemp makes it private; a result file is not
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return str(path)
