"""Compat path: ``agenteval.rag_results`` is :mod:`agenteval.results.rag` (the same module object):
the RAG result containers.

Kept so documented imports (``from agenteval.rag_results import ...``) keep working. The module
replaces itself in ``sys.modules``, so attributes set on it (tests' monkeypatches) reach
the real code.
"""

import sys

import agenteval.results.rag as _module

sys.modules[__name__] = _module
