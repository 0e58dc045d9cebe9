"""``python -m vrpcoder_loop``: the loop command alone."""

import os

from vrpcoder_loop.loop import main

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
main()
