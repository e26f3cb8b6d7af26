"""extensiond's Python SDK: widgets and actions (`Widget`, `Action`, `run`), Adaptive
Cards (`extensiond.cards`), hosts (`HostClient`) and a test kit (`extensiond.testing`).
Standard library only. The protocol is docs/PROTOCOL.md."""

from .extension import (AT_END, NEVER, Action, Cancel, Context, DefaultsError, Extension, Failed, MemoryWarning,
                        NewData, NoData, Request, Widget, after, run)
from .host import HostClient, HostError

__all__ = ["AT_END", "NEVER", "Action", "Cancel", "Context", "DefaultsError", "Extension", "Failed", "HostClient",
           "HostError", "MemoryWarning", "NewData", "NoData", "Request", "Widget", "after", "run"]
__version__ = "0.1.0"
