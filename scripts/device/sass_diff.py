#!/usr/bin/env python3
"""Per kernel (demangled names matching a pattern), the SASS of two binaries side by side:
instruction counts, how many differ, and the opcode histogram change. Reads `cuobjdump -sass`
output files. Usage: sass_diff.py OLD.sass NEW.sass PATTERN"""
import collections, difflib, re, subprocess, sys

if len(sys.argv) != 4:
    sys.exit(__doc__.strip())


def functions(path):
    out, cur = {}, None
    for line in open(path):
        m = re.match(r"\s+Function : (\S+)", line)
        if m:
            cur = m.group(1)
            out[cur] = []
            continue
        m = re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;", line)
        if m and cur:
            out[cur].append(re.sub(r"\s+", " ", m.group(1)))
    return out


def short(name):
    d = subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip()
    d = re.sub(r"kgate::ssu::gpu::\(anonymous namespace\)::", "", d)
    d = re.sub(r"\(.*\)$", "", d).replace("__nv_bfloat16", "bf16").replace("void ", "")
    return d.replace("ssu_fast_mid_kernel", "ssu_fast_kernel")


old = {short(k): v for k, v in functions(sys.argv[1]).items()}
new = {short(k): v for k, v in functions(sys.argv[2]).items()}
pat = re.compile(sys.argv[3])
for name in sorted(set(old) | set(new)):
    if not pat.search(name):
        continue
    a, b = old.get(name), new.get(name)
    if a is None or b is None:
        print(f"{name}: only in {'new' if a is None else 'old'}")
        continue
    diff = sum(1 for l in difflib.ndiff(a, b) if l[:1] in "+-")
    op = lambda v: collections.Counter(i.split()[0] if not i.startswith("@") else i.split()[1] for i in v)
    ch = op(b)
    ch.subtract(op(a))
    moved = ", ".join(f"{k} {v:+d}" for k, v in sorted(ch.items()) if v)
    print(f"{name}: {len(a)} -> {len(b)} instructions, {diff} lines differ; opcodes {moved or 'same counts'}")
