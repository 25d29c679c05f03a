"""Compat path: ``agenteval.results_io`` is :mod:`agenteval.results.io` (the same module object):
saving and loading results (manifest, load_results).

Kept so documented imports (``from agenteval.results_io import ...``) keep working. The module
replaces itself in ``sys.modules``, so attributes set on it (tests' monkeypatches) reach
the real code.
"""

import sys

import agenteval.results.io as _module

sys.modules[__name__] = _module
