#!/usr/bin/env python3
"""What XBoard/WinBoard launches: `xboard -fcp "python3 xboard.py"`."""
import sys

from fairymax.driver import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
