"""Reading and rewriting link kits for the tests that make bad ones.

Layouts follow linkkit/kit_format.h (kit version 1): a 64-byte header,
the zlib stream of the payload, then an optional trailer. Signed kits are
refused, since any edit would break the signature.
"""
import hashlib
import struct
import subprocess
import sys
import zlib

KIT_MAGIC = b"LINKKIT\x1a"
HEADER = struct.Struct("<8sHHIQQ32s")  # struct lk_kit_header, 64 bytes
LK_KIT_F_SIGNED = 1
LK_KIT_F_SEGMENTS = 2  # segment index after the stream
LK_KIT_F_PROV = 4      # provenance record after the stream and index
LK_KIT_F_BLAKE3 = 8    # the header hash is BLAKE3, not SHA-256
TABLES_AT = 24  # six u32 fields, then struct lk_table {off, count} pairs
SYMBOLS_TABLE, RELOCS_TABLE, STRTAB_TABLE, KSYMS_TABLE = 5, 6, 11, 14
FLAGS_AT = 12  # lk_payload_header.flags
LK_PAYLOAD_F_LINUX_KALLSYMS = 0x8


def table(payload, index):
    """(off, count) of payload table INDEX, in lk_payload_header order."""
    return struct.unpack_from("<II", payload, TABLES_AT + 8 * index)


def open_kit(path, tool):
    """(kit bytes, header fields, inflated payload) of an unsigned kit;
    exits with `TOOL: PATH: why` on anything else."""
    def die(msg):
        sys.exit(f"{tool}: {path}: {msg}")

    kit = open(path, "rb").read()
    if len(kit) < HEADER.size:
        die("too short")
    fields = HEADER.unpack_from(kit)
    magic, version, hsize, flags, zsize, size, _ = fields
    if magic != KIT_MAGIC or version != 1 or hsize != HEADER.size:
        die("not a version 1 link kit")
    if flags & LK_KIT_F_SIGNED:
        die("signed kits cannot be edited")
    payload = zlib.decompress(kit[hsize:hsize + zsize])
    if len(payload) != size:
        die(f"payload_size {size} but {len(payload)} bytes inflated")
    return kit, fields, payload


def kit_digest(flags, data):
    """The header's hash of DATA: BLAKE3 (b3sum, Debian's package) for a
    kit with LK_KIT_F_BLAKE3, else SHA-256."""
    if flags & LK_KIT_F_BLAKE3:
        out = subprocess.run(["b3sum", "--no-names"], input=data,
                             capture_output=True, check=True).stdout
        return bytes.fromhex(out.split()[0].decode())
    return hashlib.sha256(data).digest()


def pack(fields, stream, size=None, zsize=None):
    """A kit around STREAM with the header fields recomputed (or forced)."""
    magic, version, hsize, flags = fields[:4]
    head = HEADER.pack(magic, version, hsize, flags,
                       len(stream) if zsize is None else zsize,
                       fields[5] if size is None else size,
                       kit_digest(flags, stream))
    return head + stream


def repack(kit, fields, payload, level=9):
    """KIT with its payload replaced by PAYLOAD (recompressed as one
    stream, header and hash recomputed, any trailer kept). The segment
    index and the provenance record described the old stream: dropped."""
    hsize, zsize = fields[2], fields[4]
    stream = zlib.compress(bytes(payload), level)
    fields = list(fields)
    fields[3] &= ~(LK_KIT_F_SEGMENTS | LK_KIT_F_PROV)
    return pack(fields, stream, size=len(payload)) + kit[hsize + zsize:]
