"""Reads and writes .gtx index files section by section (src/gtx/GTX-FORMAT.md),
so that tests can make files that are well formed but wrong inside: every
checksum recomputed, the way a buggy writer or a deliberate edit would."""
import struct
import zlib


def read(path):
    """(version, sections): each section [id, record_size, count, bytearray]."""
    b = open(path, "rb").read()
    n = struct.unpack_from("<I", b, 20)[0]
    secs = []
    for i in range(n):
        sid, rs, off, size, cnt = struct.unpack_from("<IIQQQ", b, 128 + 48 * i)
        secs.append([sid, rs, cnt, bytearray(b[off:off + size])])
    return struct.unpack_from("<I", b, 8)[0], secs


def section_sum(version, data):
    # GTX-FORMAT.md, Checksums: CRC-32 up to version 3, then XXH3-64 of the
    # XXH3-64 of each 1 MiB chunk
    if version < 4:
        return struct.pack("<I12x", zlib.crc32(bytes(data)))
    import xxhash
    chunks = b"".join(struct.pack("<Q", xxhash.xxh3_64_intdigest(bytes(data[i:i + (1 << 20)])))
                      for i in range(0, len(data), 1 << 20))
    return struct.pack("<Q8x", xxhash.xxh3_64_intdigest(chunks))


STATS, RESUME = 13, 25
STATS_V4, RESUME_V4 = 5 + 128 + 10, 53  # u64 words before version 5


def as_version(version, secs):
    """The sections as a file of that version holds them: before version 5
    the ingest stats and the resume state keep ten warning counts."""
    if version >= 5:
        return secs
    out = []
    for sid, rs, cnt, data in secs:
        keep = {STATS: STATS_V4, RESUME: RESUME_V4}.get(sid)
        if keep is not None and cnt > keep:  # both end with the later warnings
            data, cnt = data[:8 * keep], keep
        out.append([sid, rs, cnt, data])
    return out


def write(path, version, secs):
    secs = as_version(version, secs)
    table = bytearray()
    off = 128 + 48 * len(secs)
    for sid, rs, cnt, data in secs:
        off = (off + 63) // 64 * 64
        table += struct.pack("<IIQQQ", sid, rs, off, len(data), cnt) + section_sum(version, data)
        off += len(data)
    size = (off + 63) // 64 * 64
    head = bytearray(128)
    head[0:8] = b"GPUTRIDX"
    struct.pack_into("<IIIIQQII", head, 8, version, 0x01020304, 128, len(secs), size, 128, 48,
                     zlib.crc32(bytes(table)))
    struct.pack_into("<I", head, 124, zlib.crc32(bytes(head[:124])))
    out = head + table
    for sid, rs, cnt, data in secs:
        out += bytes((len(out) + 63) // 64 * 64 - len(out)) + data
    out += bytes(size - len(out))
    open(path, "wb").write(out)
