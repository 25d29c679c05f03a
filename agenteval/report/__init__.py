"""Compat path: the self-contained HTML report lives in :mod:`agenteval.present.report` now;
``agenteval.report`` is that same module.

Kept so documented imports (``from agenteval.report import ...``) keep working. The module replaces
itself in ``sys.modules``, so attributes set on it (tests' monkeypatches) reach the real code.
"""

import sys

import agenteval.present.report as _module

sys.modules[__name__] = _module
