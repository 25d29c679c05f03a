"""Private helpers shared across the package (the lowest layer, beside ``agenteval.errors``).

numbers (reading numbers written in text), aio (running a coroutine from sync code), gc (pausing
the collector while loading), lazy (lazy module attributes), arviz (the ArviZ 0.x / 1.x adapter),
files (atomic writes, never through a symbolic link), jsonsafe (JSON without NaN and back),
netcdf (posterior draws as an ArviZ-readable NetCDF file), version (the package version),
sanitize (hostile ids and texts made safe for CSV, terminals, HTML and NetCDF).
Nothing here imports another agenteval module except ``agenteval.errors``.
"""
