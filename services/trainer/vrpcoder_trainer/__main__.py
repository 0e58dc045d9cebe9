"""``python -m vrpcoder_trainer ...``: the ``vrpcoder train`` commands, for ``accelerate launch -m``."""

from vrpcoder_trainer.cli import app

app()
