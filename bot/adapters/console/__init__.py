"""The terminal front end: the same core calls the chat platforms use, rendered with rich."""

from .app import run_console

__all__ = ["run_console"]
