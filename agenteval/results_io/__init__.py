"""Compat path: saving and loading results (manifest, load_results) lives in :mod:`agenteval.results.io` now;
``agenteval.results_io`` is that same module.

Kept so documented imports (``from agenteval.results_io import ...``) keep working. The module replaces
itself in ``sys.modules``, so attributes set on it (tests' monkeypatches) reach the real code.
"""

import sys

import agenteval.results.io as _module

sys.modules[__name__] = _module
