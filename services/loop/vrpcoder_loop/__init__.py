"""`vrpcoder loop`: synthesis -> tiny model -> SFT -> GRPO (verifier reward) -> evaluation, end to end."""
