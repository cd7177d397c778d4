"""`proseval cache stats | clear`."""

from __future__ import annotations

import typer

from ..commandline.console import console
from ..runtime.cache import CacheError, ResponseCache, cache_files, default_cache_path

app = typer.Typer(no_args_is_help=True)  # its help: its summary in cli/commands.py


@app.command("stats")
def cache_stats() -> None:
    """Where the cache is, how many responses it holds and its size."""
    cache = ResponseCache()
    stats = cache.stats()
    cache.close()
    console.print(f"cache: {stats['path']}\nentries: {stats['entries']:,}\nsize on disk: {stats['file_bytes']:,} bytes")


@app.command("clear")
def cache_clear(yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation.")) -> None:
    """Delete every cached response (a damaged cache file is deleted whole)."""
    try:
        cache = ResponseCache()
    except CacheError as exc:
        if not exc.damaged:
            raise
        path = default_cache_path()
        if not yes and not typer.confirm(f"The cache {path} is damaged. Delete it?"):
            raise typer.Exit(1)
        for file in cache_files(path):
            file.unlink()
        console.print(f"deleted the damaged cache {path}")
        return
    if not yes and not typer.confirm(f"Delete all cached responses in {cache.path}?"):
        raise typer.Exit(1)
    removed = cache.clear()
    cache.close()
    console.print(f"removed {removed:,} cached responses")
