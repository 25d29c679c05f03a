"""Compat path: ``agenteval.report`` is :mod:`agenteval.present.report` (the same module object):
the self-contained HTML report.

Kept so documented imports (``from agenteval.report import ...``) keep working. The module
replaces itself in ``sys.modules``, so attributes set on it (tests' monkeypatches) reach
the real code.
"""

import sys

import agenteval.present.report as _module

sys.modules[__name__] = _module
