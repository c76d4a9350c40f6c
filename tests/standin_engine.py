"""Run the CECP driver on the test stand-ins (tests/standin.py): `python tests/standin_engine.py`."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import standin  # noqa: E402

standin.install()

from fairymax.driver import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
