"""The ``ddzlab`` console script: `ddzlab.cli.main`, imported inside a guard.

Importing the command line (argparse, the package's modules) takes a noticeable fraction
of a second; a Ctrl-C in that time would print a Python traceback. Here it prints one line and exits with 130, like a Ctrl-C later in the run. (Python's
own start-up and this small module's import remain unguarded: a few milliseconds.)
"""
from __future__ import annotations

import sys


def main() -> int:
    """Import and run `ddzlab.cli.main`; a Ctrl-C during the import exits quietly."""
    try:
        from .cli import main as cli_main
    except KeyboardInterrupt:
        print("\nddzlab: interrupted", file=sys.stderr)
        return 130
    return cli_main()


__all__ = ["main"]
