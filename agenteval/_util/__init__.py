"""Private helpers shared across the package (the lowest layer, beside ``agenteval.errors``).

numbers (reading numbers written in text), aio (running a coroutine from sync code), gc (pausing
the collector while loading), lazy (lazy module attributes), arviz (the ArviZ 0.x / 1.x adapter),
sanitize (hostile ids and texts made safe for CSV, terminals, HTML and NetCDF).
Nothing here imports another agenteval module except ``agenteval.errors``.
"""
