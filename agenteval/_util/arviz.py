"""The one place agenteval calls ArviZ, so arviz 0.x (Python 3.11) and 1.x both work.

ArviZ 0.x has ``InferenceData`` with ``az.from_dict``; 1.x returns an xarray ``DataTree`` from
``arviz_base.from_dict`` and moved diagnostics to ``arviz_stats``. Everything here takes and
returns plain numpy / xarray objects; nothing else in agenteval imports arviz.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np


def _az() -> Any:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=FutureWarning)
        try:
            import arviz as az
        except ImportError as exc:  # pragma: no cover - part of the dev install
            raise ImportError("agenteval's ArviZ export needs arviz: "
                              "pip install 'agenteval[bayes]'") from exc
    return az


def major() -> int:
    """ArviZ's major version (0 or 1)."""
    return int(_az().__version__.split(".")[0])


def rhat(data: Any, var_names: list[str]) -> Any:
    """Rank-normalised split r_hat per variable (an xarray Dataset)."""
    return _az().rhat(data, var_names=var_names)


def ess(data: Any, var_names: list[str], *, method: str = "bulk") -> Any:
    """Effective sample size ('bulk' or 'tail') per variable."""
    return _az().ess(data, var_names=var_names, method=method)


def _values(ds: Any) -> np.ndarray:
    if hasattr(ds, "data_vars"):
        parts = [np.asarray(ds[v].values, dtype=float).ravel() for v in ds.data_vars]
    else:  # pragma: no cover - DataTree node
        parts = [np.asarray(ds[v].values, dtype=float).ravel() for v in ds.ds.data_vars]
    return np.concatenate(parts) if parts else np.array([np.nan])


def max_over(ds: Any) -> float:
    """Largest value over every variable and coordinate (NaN-aware)."""
    v = _values(ds)
    return float(np.nanmax(v)) if np.isfinite(v).any() else float("nan")


def min_over(ds: Any) -> float:
    """Smallest value over every variable and coordinate (NaN-aware)."""
    v = _values(ds)
    return float(np.nanmin(v)) if np.isfinite(v).any() else float("nan")


_GROUPS = ("posterior", "prior", "log_likelihood", "posterior_predictive", "observed_data",
           "constant_data", "sample_stats")


def from_layout(layout: Any) -> Any:
    """InferenceData (0.x) or DataTree (1.x) from a ``statistical.idata_layout.Layout`` (or any
    record with the groups as dicts of (chain, draw, *dims) arrays, ``coords``, ``dims``, and
    optionally ``aux`` non-index coordinates per group and ``attrs``)."""
    groups = {name: data for name in _GROUPS if (data := getattr(layout, name, None))}
    return from_dict(**groups, coords=layout.coords, dims=layout.dims,
                     aux=getattr(layout, "aux", None), attrs=layout.attrs)


def from_dict(*, posterior: dict[str, np.ndarray], observed_data: dict[str, np.ndarray],
              prior: dict[str, np.ndarray] | None = None,
              log_likelihood: dict[str, np.ndarray] | None = None,
              posterior_predictive: dict[str, np.ndarray] | None = None,
              constant_data: dict[str, np.ndarray] | None = None,
              sample_stats: dict[str, np.ndarray] | None = None,
              coords: dict[str, Any], dims: dict[str, list[str]],
              aux: dict[str, dict[str, tuple[tuple[str, ...], np.ndarray]]] | None = None,
              attrs: dict[str, Any] | None = None) -> Any:
    """InferenceData (0.x) or DataTree (1.x) from arrays with (chain, draw, *dims) posteriors;
    ``aux``: per group, coordinates that are not dimensions (name -> (dims, values))."""
    az = _az()
    groups: dict[str, Any] = {"posterior": posterior, "observed_data": observed_data}
    for name, data in (("prior", prior), ("log_likelihood", log_likelihood),
                       ("posterior_predictive", posterior_predictive),
                       ("constant_data", constant_data), ("sample_stats", sample_stats)):
        if data:
            groups[name] = data
    if major() >= 1:   # pragma: no cover - arviz 1.x
        from arviz_base import from_dict as from_dict_1

        tree = from_dict_1(groups, coords=coords, dims=dims)
        for name in groups:
            tree[name].attrs.update(attrs or {})
            for coord, (cdims, values) in (aux or {}).get(name, {}).items():
                tree[name] = tree[name].assign_coords({coord: (cdims, values)})
        return tree
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=FutureWarning)
        data = az.from_dict(**groups, coords=coords, dims=dims)
    for name in data.groups():
        ds = getattr(data, name)
        extra = (aux or {}).get(name, {})
        if extra:
            ds = ds.assign_coords({coord: (cdims, values) for coord, (cdims, values)
                                   in extra.items()})
            setattr(data, name, ds)
        ds.attrs.update(attrs or {})
    return data


def to_netcdf(data: Any, path: str) -> str:
    """Write InferenceData / DataTree to a NetCDF file (h5netcdf or netCDF4 engine); strings
    h5py refuses (NUL, lone surrogates) are escaped (``agenteval._util.sanitize``)."""
    from agenteval._util.sanitize import netcdf_safe

    netcdf_safe(data).to_netcdf(path)
    return str(path)


def from_netcdf(path: str) -> Any:
    """Read what :func:`to_netcdf` wrote."""
    az = _az()
    if major() >= 1:   # pragma: no cover - arviz 1.x
        import xarray as xr

        return xr.open_datatree(path)
    return az.from_netcdf(path)


def groups(data: Any) -> list[str]:
    """The group names (posterior, observed_data, ...)."""
    if hasattr(data, "groups") and callable(data.groups):
        return list(data.groups())
    return [g.lstrip("/") for g in data.groups if g != "/"]  # pragma: no cover - DataTree


def group(data: Any, name: str) -> Any:
    """One group as an xarray Dataset."""
    if major() >= 1:   # pragma: no cover - arviz 1.x
        return data[name].to_dataset()
    return getattr(data, name)
