"""Golf Race: real-time multiplayer Golf solitaire."""

__version__ = "0.1.0"
