"""What a buffer's open, edit, save and close do, for a text file and a notebook alike
(lifecycle.py, notebooks.py): when it is checked, and what is dropped when it closes."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .app import ExportLensServer


def opened(ls: ExportLensServer, uri: str) -> None:
    """A buffer (a file, a notebook) opened or saved: all of it checked, the cache ignored."""
    ls.scheduler.schedule(uri, force=True)


def edited(ls: ExportLensServer, uri: str, now: bool = False) -> None:
    """A buffer edited: checked once the typing pauses (runOn "type", or `now`: an edit that must
    be checked whatever runOn says), else its lenses say "(stale)" until it is saved. The file's
    own runOn: a folder's `runOn: save` holds in a multi-root window."""
    settings = ls.session.file_settings(uri)
    if settings.run_on == "type" or now:
        ls.scheduler.schedule(uri, delay=settings.debounce_ms / 1000)
    else:
        ls.refresh_lenses()


def closed(ls: ExportLensServer, uri: str) -> None:
    """A buffer closed: nothing runs or is shown for it any more."""
    ls.scheduler.close(uri)
    ls.clear(uri)
