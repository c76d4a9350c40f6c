#!/usr/bin/env python3
"""What a GUI launches: `xboard -fcp "python3 xboard.py"`, or a UCI GUI (first line `uci`)."""
import sys

from fairymax.frontend import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
