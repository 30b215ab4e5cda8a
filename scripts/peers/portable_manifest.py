#!/usr/bin/env python3
"""Rewrites a peer build's manifest (JSON) in place so that it names no machine path: every
occurrence of a build folder in its strings becomes that folder's placeholder.
Usage: portable_manifest.py MANIFEST DIR=NAME...   (e.g. /work/x/build-peers/fi='$OUT')"""
import json
import sys

path, *pairs = sys.argv[1:]
# The longest folder first: a folder inside another is named by its own placeholder.
subs = sorted((p.split("=", 1) for p in pairs if p.split("=", 1)[0]), key=lambda kv: -len(kv[0]))


def portable(v):
    if isinstance(v, str):
        for folder, name in subs:
            v = v.replace(folder, name)
        return v
    if isinstance(v, list):
        return [portable(x) for x in v]
    if isinstance(v, dict):
        return {k: portable(x) for k, x in v.items()}
    return v


with open(path) as f:
    text = f.read()
indent = 1 if text.startswith('{\n "') else 2
with open(path, "w") as f:
    json.dump(portable(json.loads(text)), f, indent=indent)
    f.write("\n")
