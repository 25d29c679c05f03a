"""Compat path: the RAG result containers lives in :mod:`agenteval.results.rag` now;
``agenteval.rag_results`` is that same module.

Kept so documented imports (``from agenteval.rag_results import ...``) keep working. The module replaces
itself in ``sys.modules``, so attributes set on it (tests' monkeypatches) reach the real code.
"""

import sys

import agenteval.results.rag as _module

sys.modules[__name__] = _module
