"""Compat path: the prior-sensitivity explorer lives in :mod:`agenteval.present.widgets` now;
``agenteval.widgets`` is that same module.

Kept so documented imports (``from agenteval.widgets import ...``) keep working. The module replaces
itself in ``sys.modules``, so attributes set on it (tests' monkeypatches) reach the real code.
"""

import sys

import agenteval.present.widgets as _module

sys.modules[__name__] = _module
