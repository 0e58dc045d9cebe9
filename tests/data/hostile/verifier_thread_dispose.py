"""Hostile: the candidate's failure dressed up as ours. A node table whose keys run the script's
own ``__str__`` when the verifier reads it (the table itself is a plain dict, so nothing of it
runs but its keys), on the verifier's own thread mid-verification: the hook disposes of the
returned model and returns the key as it should. The verifier's next step (INJ saving the model's
state before its first query, outside any isolation and outside INJ's own error handling) then
fails in the verifier's frames alone, hoping that reads as the verifier's crash (infrastructure:
no reward at all) instead of the candidate's."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

_state = {"model": None}


class Node(int):
    def __str__(self):
        model, _state["model"] = _state["model"], None
        if model is not None:
            model.dispose()
            print("model disposed from the verifier's thread", flush=True)
        return int.__repr__(self)


def build_model():
    m = gold_build_model()
    _state["model"] = m
    print("id2idx keys are booby-trapped", flush=True)
    return m


id2idx = {Node(i): i for i in range(6)}
