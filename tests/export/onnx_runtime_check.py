#!/usr/bin/env python3
"""Runs an ONNX file that kiln exported in ONNX Runtime and compares its output with kiln's.

usage: onnx_runtime_check.py MODEL.onnx INPUT.npy EXPECTED.npy TOLERANCE

EXPECTED holds kiln's Module::predict of INPUT. The model runs on the whole batch and again on
its first row alone (the batch dimension is dynamic), and each output must be within TOLERANCE
of kiln's: |onnx - kiln| <= TOLERANCE * max(1, |kiln|) everywhere. Prints the largest
differences; exits 0 when they pass, 1 when not.
"""
import sys

import numpy as np
import onnxruntime as ort


def main(model_path, input_path, expected_path, tolerance):
    x = np.load(input_path)
    expected = np.load(expected_path)
    session = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    if session.get_inputs()[0].type == "tensor(int64)":
        x = x.astype(np.int64)  # token ids (a GPT's input_ids): kiln's float32 ids are whole
    ok = True
    for name, rows in (("batch of %d" % len(x), slice(None)), ("batch of 1", slice(0, 1))):
        (y,) = session.run(["output"], {"input": x[rows]})
        want = expected[rows]
        if y.shape != want.shape:
            print("%s: ONNX Runtime gave shape %s, kiln %s" % (name, y.shape, want.shape))
            ok = False
            continue
        error = np.abs(y.astype(np.float64) - want) / np.maximum(1.0, np.abs(want))
        worst = np.unravel_index(np.argmax(error), error.shape)
        print("%s: max relative difference %.3g at %s (onnx %r, kiln %r)"
              % (name, error[worst], tuple(int(i) for i in worst), float(y[worst]), float(want[worst])))
        ok = ok and bool(error.max() <= tolerance) and not np.isnan(y).any()
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])))
