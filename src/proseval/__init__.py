"""proseval: evaluate how well large language models write."""

__version__ = "0.1.0"
