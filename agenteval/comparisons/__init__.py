"""Compat path: ``agenteval.comparisons`` is :mod:`agenteval.results.comparisons`
(the same module object):
the comparison, ranking and quality rows.

Kept so documented imports (``from agenteval.comparisons import ...``) keep working. The module
replaces itself in ``sys.modules``, so attributes set on it (tests' monkeypatches) reach
the real code.
"""

import sys

import agenteval.results.comparisons as _module

sys.modules[__name__] = _module
