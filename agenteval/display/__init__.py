"""Compat path: ``agenteval.display`` is :mod:`agenteval.present.html` (the same module object):
the notebook HTML of results.

Kept so documented imports (``from agenteval.display import ...``) keep working. The module
replaces itself in ``sys.modules``, so attributes set on it (tests' monkeypatches) reach
the real code.
"""

import sys

import agenteval.present.html as _module

sys.modules[__name__] = _module
