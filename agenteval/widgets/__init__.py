"""Compat path: ``agenteval.widgets`` is :mod:`agenteval.present.widgets` (the same module object):
the prior-sensitivity explorer.

Kept so documented imports (``from agenteval.widgets import ...``) keep working. The module
replaces itself in ``sys.modules``, so attributes set on it (tests' monkeypatches) reach
the real code.
"""

import sys

import agenteval.present.widgets as _module

sys.modules[__name__] = _module
