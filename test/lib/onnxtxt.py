#!/usr/bin/env python3
"""Converts an ONNX model in text form (onnx.parser syntax) to a .onnx file.

Usage: onnxtxt.py INPUT.onnxtxt -o OUTPUT.onnx [--ir-version N]

Lines starting with '#' are comments (lit RUN/CHECK lines live there). The
model is not run through onnx.checker, so tests can build invalid models on
purpose.
"""
import argparse
import sys

import onnx
import onnx.parser


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--ir-version", type=int, default=None)
    args = ap.parse_args()
    with open(args.input) as f:
        text = f.read()
    try:
        model = onnx.parser.parse_model(text)
    except Exception as e:  # the parser raises its own exception types
        print(f"onnxtxt: cannot parse {args.input}: {e}", file=sys.stderr)
        return 1
    if args.ir_version is not None:
        model.ir_version = args.ir_version
    onnx.save(model, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
