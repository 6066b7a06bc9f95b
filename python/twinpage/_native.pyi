"""The native module: twinpage's commands, run in this process with the GIL released."""

from typing import List

__version__: str

class CommandError(Exception):
    """A twinpage command failed; the message is the command line's."""

def run(args: List[str]) -> None:
    """Runs `twinpage ARGS...` (without the program name) in this process."""
