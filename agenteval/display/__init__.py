"""Compat path: the notebook HTML of results lives in :mod:`agenteval.present.html` now;
``agenteval.display`` is that same module.

Kept so documented imports (``from agenteval.display import ...``) keep working. The module replaces
itself in ``sys.modules``, so attributes set on it (tests' monkeypatches) reach the real code.
"""

import sys

import agenteval.present.html as _module

sys.modules[__name__] = _module
