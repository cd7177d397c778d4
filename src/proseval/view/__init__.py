"""`proseval view`: a local, read-only web app to browse run folders, live while they are written."""

from .app import create_app

__all__ = ["create_app"]
