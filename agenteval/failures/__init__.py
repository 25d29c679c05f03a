"""Compat path: ``agenteval.failures`` is :mod:`agenteval.results.failures`
(the same module object):
the grouping of judge failures.

Kept so documented imports (``from agenteval.failures import ...``) keep working. The module
replaces itself in ``sys.modules``, so attributes set on it (tests' monkeypatches) reach
the real code.
"""

import sys

import agenteval.results.failures as _module

sys.modules[__name__] = _module
