#!/usr/bin/env python3
"""Writes the seed corpus of each fuzz target (tests/fuzz/corpus/<target>/): small valid files and
a few near misses, so libFuzzer starts from the formats' structure. Run once; the seeds are kept
in the repository, beside the crash inputs found (crash-*), which stay as regression inputs.
The two JPEG seeds (image/rgb.jpg, image/gray_progressive.jpg: 8 x 8, quality 50) were written
once with libjpeg's cjpeg-style API and are kept as they are. npy/crash-shape-product-wraps and
safetensors/crash-offsets-past-the-data are what the targets found within seconds in the
parsers with issue 16's checks taken out (a shape product wrapping 64 bits, offsets past the
data): kept so every run tries them first."""
import gzip, json, os, struct, zlib

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def put(target, name, data):
    os.makedirs(os.path.join(root, target), exist_ok=True)
    with open(os.path.join(root, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def npy(descr, shape, payload, major=1):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    prefix = 10 if major == 1 else 12
    header += " " * ((64 - (prefix + len(header) + 1) % 64) % 64) + "\n"
    size = struct.pack("<H" if major == 1 else "<I", len(header))
    return b"\x93NUMPY" + bytes([major, 0]) + size + header.encode() + payload


put("npy", "f4_2d", npy("<f4", "(3, 3)", struct.pack("<9f", 1, 2, 0, 3, 4, 1, 5, 6, 2)))
put("npy", "f8_v2", npy("<f8", "(2, 2)", struct.pack("<4d", 0.5, 1, 1.5, 0), major=2))
put("npy", "u1", npy("|u1", "(4, 2)", bytes([1, 0, 2, 1, 3, 0, 4, 1])))
put("npy", "nan", npy("<f4", "(1, 2)", struct.pack("<2f", float("nan"), 0)))


def safetensors(entries, data, metadata=None):
    header = dict(entries)
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":"))
    text += " " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text.encode() + data


put("safetensors", "two", safetensors(
    {"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},
     "b": {"dtype": "I32", "shape": [1], "data_offsets": [16, 20]}},
    struct.pack("<4fi", 1, 2, 3, 4, 7), {"format": "pt"}))
put("safetensors", "empty_tensor", safetensors(
    {"e": {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]}}, b""))


def idx(dims, payload):
    return bytes([0, 0, 8, len(dims)]) + b"".join(struct.pack(">I", d) for d in dims) + payload


put("idx", "images", idx([3, 2, 2], bytes(range(12))))
put("idx", "images_gz", gzip.compress(idx([2, 2, 3], bytes(range(12))), mtime=0))

put("csv", "header", "label,a,b\n1,0.5,2\n0,1e-3,\"3\"\n")
put("csv", "plain", "1,2,3\n0,4,5\n2,6,7\n")
put("csv", "bom_semicolon_gaps", "\ufeff1, 2 ,3\r\n\r\n0,4,5\r\n")


def png(width, height, color_type, rows):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    raw = b"".join(b"\0" + row for row in rows)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


put("image", "gray.png", png(3, 2, 0, [bytes([0, 128, 255]), bytes([9, 8, 7])]))
put("image", "rgba.png", png(2, 2, 6, [bytes(range(8)), bytes(range(8, 16))]))

state = {"format": "kiln-checkpoint-2", "epoch": 2, "batches_done": 3, "global_step": 19,
         "optimizer_steps": 19, "seed": 1, "generator_offset": 0, "model": "mlp:784-32-10",
         "data": "article", "batch_size": 64, "optimizer": "momentum",
         "settings": {"--lr": "0.05", "--model": "mlp:784-32-10"},
         "pieces": {"model.safetensors": {"bytes": 1024, "crc32": 305419896}}}
put("state_json", "state", json.dumps(state, indent=2))
put("state_json", "first_layout", json.dumps({k: state[k] for k in state if k not in ("settings", "pieces")}))
