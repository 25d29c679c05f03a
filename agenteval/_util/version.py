"""The package version, in the lowest layer so any module can name it without importing the
package's public surface (``agenteval/__init__.py`` re-exports it as ``agenteval.__version__``)."""

__version__ = "0.1.0"
