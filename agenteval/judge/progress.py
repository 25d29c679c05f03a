"""Progress bars of the judging phases: :mod:`agenteval._util.progress` (one implementation for
every long phase, the MCMC fits too), under the name the judge modules import."""

from agenteval._util.progress import DELAY, LOG_INTERVAL, Progress, iterate, warm

__all__ = ["DELAY", "LOG_INTERVAL", "Progress", "iterate", "warm"]
