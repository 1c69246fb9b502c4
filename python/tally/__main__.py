# SPDX-License-Identifier: MIT
"""python3 -m tally plot FILE [-o OUT.png|OUT.svg]: a plot of any JSON document tally writes."""
import sys

from .plot import main

sys.exit(main(sys.argv[1:]))
