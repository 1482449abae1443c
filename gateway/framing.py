"""Protobuf wire framing written by hand on the hot paths: a stream's response is a log
entry's event bytes under a field tag, joined without parsing them again."""


def varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def length_delimited(tag: bytes, data: bytes) -> bytes:
    """``data`` as a length-delimited field under ``tag`` (its key byte, e.g. b"\\x0a" for
    field 1); b'' stays b'' (an empty field is not written)."""
    return tag + varint(len(data)) + data if data else b""
