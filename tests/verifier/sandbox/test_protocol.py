"""Framing and messages between executor, supervisor and the candidate's process."""

from __future__ import annotations

import os
import time

import pytest
from vrpcoder.errors import ErrorKind, VerificationError
from vrpcoder.samples import Sample
from vrpcoder_verifier.sandbox.protocol import (
    WORKER_MESSAGE,
    BuildFailed,
    Built,
    FrameDecoder,
    FrameError,
    Violation,
    disclosed_sample,
    encode_frame,
    read_frame,
    write_frame,
)


def test_decoder_reassembles_frames_from_any_chunking() -> None:
    payloads = [b"", b"a", b"hello world" * 100]
    stream = b"".join(encode_frame(p) for p in payloads)
    decoder = FrameDecoder(limit=4096)
    frames: list[bytes] = []
    for i in range(len(stream)):
        frames.extend(decoder.feed(stream[i : i + 1]))
    assert frames == payloads
    assert decoder.pending == 0


def test_decoder_rejects_a_frame_over_its_cap_before_buffering_it() -> None:
    decoder = FrameDecoder(limit=10)
    with pytest.raises(FrameError):
        decoder.feed(encode_frame(b"x" * 11)[:4])


def test_read_frame_gives_up_at_the_deadline() -> None:
    r, w = os.pipe()
    try:
        write_frame(w, b"first")
        os.write(w, encode_frame(b"second")[:6])
        assert read_frame(r, 100) == b"first"
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            read_frame(r, 100, deadline=started + 0.1)
        assert time.monotonic() - started < 5
    finally:
        os.close(r)
        os.close(w)


def test_read_frame_rejects_a_stream_that_ends_inside_a_frame() -> None:
    r, w = os.pipe()
    os.write(w, encode_frame(b"second")[:6])
    os.close(w)
    try:
        with pytest.raises(FrameError):
            read_frame(r, 100)
    finally:
        os.close(r)


def test_read_frame_returns_none_at_a_frame_boundary_end() -> None:
    r, w = os.pipe()
    os.close(w)
    try:
        assert read_frame(r, 100) is None
    finally:
        os.close(r)


def test_read_frame_rejects_oversized_frames() -> None:
    r, w = os.pipe()
    try:
        write_frame(w, b"y" * 50)
        with pytest.raises(FrameError):
            read_frame(r, 49)
    finally:
        os.close(r)
        os.close(w)


def test_disclosed_sample_carries_no_gold_script(cvrp: Sample) -> None:
    shown = disclosed_sample(cvrp)
    assert shown.gold_code == "" and shown.statement is None
    assert cvrp.gold_code not in shown.model_dump_json()
    assert (shown.id, shown.reference_objective, shown.probes) == (cvrp.id, cvrp.reference_objective, cvrp.probes)


@pytest.mark.parametrize(
    "message",
    [
        Violation(detail="gc.get_objects"),
        Built(),
        BuildFailed(error=VerificationError(kind=ErrorKind.SYNTAX_ERROR, detail="line 1"), seconds=0.5),
    ],
    ids=lambda m: m.kind,
)
def test_worker_messages_round_trip(message: Violation | Built | BuildFailed) -> None:
    assert WORKER_MESSAGE.validate_json(message.model_dump_json()) == message


@pytest.mark.parametrize("raw", [b"{}", b'{"kind": "passed"}', b"not json", b'{"kind": "built", "extra": 1}x'])
def test_worker_messages_reject_anything_else(raw: bytes) -> None:
    with pytest.raises(ValueError):
        WORKER_MESSAGE.validate_json(raw)
