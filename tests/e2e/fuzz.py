#!/usr/bin/env python3
"""Hostile input for every kgate command, on the CPU backend, with a fixed seed.

Four families of cases, each run in its own folder with a time limit:
  tables   mutations of cases/*.json (types, ranges, missing and extra fields, huge numbers,
           unicode and escapes) given to `run`;
  flags    random flag sets and values (policies among them) for every subcommand;
  readers  every file a command reads replaced by a FIFO, /dev/zero, a folder, a symlink loop,
           a missing, empty, truncated, garbage, deeply nested or oversized file;
  kills    a run SIGKILLed at a random point, then resumed or rerun: the receipt audits and no
           journal, temporary or orphan sidecar is left.
Each case's exit code is checked against the contract (0 ok, 1 gate/audit failure, 2 usage or
input error, 3 device/runtime failure: never a signal, never above 3, and per case the codes it
may give); every file a case creates or changes must lie in the output folder it named.
Usage: fuzz.py KGATE SOURCE_ROOT [SCALE]. Prints the counts; exits 1 on any nonzero count.
"""
import concurrent.futures as futures
import copy
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

KGATE, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
SCALE = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
SEED = 48
TIMEOUT_S = 20  # per command: the slowest legitimate case here takes about 2 s alone
FAST = ["--groups", "1", "--blocks", "2", "--m", "1", "--warmup-calls", "1", "--warmup-us", "0"]
RUN = ["run", "--backend", "cpu", "--quiet", "--no-peaks"]
ARMS = ["--candidate", "ssu.cpu_eigen", "--baseline", "ssu.cpu_scalar"]
ROW = ["--rows", "ssu-cpu-h8g1-b1-bf16"]

counts = {"cases": 0, "crashes": 0, "hangs": 0, "wrong exit codes": 0, "files written outside the output folder": 0,
          "orphan files": 0}
failures = []
lock = threading.Lock()


def fail(kind, what):
    with lock:
        counts[kind] += 1
        if len(failures) < 40:
            failures.append(f"{kind}: {what}")


def snapshot(root):
    """Every path under root (links not followed) with its kind and, for files, a digest."""
    seen = {}
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if os.path.islink(p):
                seen[p] = "link:" + os.readlink(p)
            elif os.path.isfile(p) and st.st_size > (64 << 20):  # the sparse oversized file: not read
                seen[p] = f"file:{st.st_size}:{st.st_mtime_ns}"
            elif os.path.isfile(p):
                h = hashlib.sha256()
                with open(p, "rb") as f:
                    while chunk := f.read(1 << 20):
                        h.update(chunk)
                seen[p] = f"file:{st.st_size}:{h.hexdigest()}"
            elif os.path.isdir(p):
                seen[p] = "dir"
            else:
                seen[p] = "other"
    return seen


def allowed_outputs(cwd, argv):
    """The folders this command was told to write into, as (folder, STEM): files STEM and STEM.*
    in it, or (folder, "") anything under it."""
    allowed = []
    for i, a in enumerate(argv[:-1]):
        v = argv[i + 1]
        if not isinstance(v, str) or not v:
            continue
        p = os.path.normpath(os.path.join(cwd, v))
        if a in ("--out", "--rendezvous"):  # R.json, R.json.journal, R.<sha16>.samples.json
            stem = os.path.basename(p)[:-5] if p.endswith(".json") else os.path.basename(p)
            allowed.append((os.path.dirname(p), stem))
        elif a == "--out-dir":
            allowed.append((p, ""))
    if argv and argv[0] == "keygen" and len(argv) > 1:
        p = os.path.normpath(os.path.join(cwd, argv[1]))
        allowed.append((os.path.dirname(p), os.path.basename(p)))
    if argv and argv[0] == "rerun":  # beside each receipt: <stem>.rerun.json, or over it (--replace)
        for a in argv[1:]:
            if a.endswith(".json") and not a.startswith("-"):
                p = os.path.normpath(os.path.join(cwd, a))
                allowed.append((os.path.dirname(p), os.path.basename(p)[:-5]))
    return allowed


def inside(path, allowed):
    for d, prefix in allowed:
        if prefix == "" and (path == d or path.startswith(d + os.sep)):
            return True
        if d == path or d.startswith(path + os.sep):  # a folder made on the way to an output
            return True
        name = os.path.basename(path)
        if prefix and os.path.dirname(path) == d and (name == prefix or name.startswith(prefix + ".")):
            return True  # STEM, STEM.json, STEM.json.journal, STEM.<sha16>.samples.json, STEM.key, ...
    return False


def kgate(case, cwd, argv, ok_codes, timeout=TIMEOUT_S):
    """One command in cwd; its exit code checked against ok_codes; returns it (None: hung)."""
    try:
        p = subprocess.run([KGATE] + argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=timeout, env=ENV)
    except subprocess.TimeoutExpired:
        fail("hangs", f"{case}: {short(argv)}: no exit in {timeout} s")
        return None
    err = p.stderr.decode("utf-8", "replace").strip().splitlines()
    why = err[-1][:200] if err else ""
    if p.returncode < 0:
        fail("crashes", f"{case}: {short(argv)}: signal {-p.returncode} ({why})")
    elif p.returncode not in ok_codes:
        fail("wrong exit codes", f"{case}: {short(argv)}: exit {p.returncode}, want {sorted(ok_codes)} ({why})")
    return p.returncode


def short(argv):
    return " ".join(a if len(a) < 60 else a[:40] + f"...({len(a)} bytes)" for a in argv)[:300]


class Case:
    """One case's folder: run() checks a command's exit code; what changed in the folder from the
    first command on (mark()) must lie where some command was told to write."""

    def __init__(self, name):
        self.name = name
        self.root = tempfile.mkdtemp(prefix="c", dir=ROOT)
        self.cwd = os.path.join(self.root, "work")
        os.mkdir(self.cwd)
        for f in FIXTURES:
            shutil.copy(os.path.join(FIX, f), self.cwd)
        self.before = None
        self.commands = []

    def mark(self, argv=None):
        if self.before is None:
            self.before = snapshot(self.root)
        if argv:
            self.commands.append(argv)

    def run(self, argv, ok, **kw):
        self.mark(argv)
        return kgate(self.name, self.cwd, argv, ok, **kw)

    def check_writes(self):
        if self.before is None:
            return
        after = snapshot(self.root)
        allowed = [a for argv in self.commands for a in allowed_outputs(self.cwd, argv)]
        changed = [p for p, what in after.items() if self.before.get(p) != what]
        removed = [p for p in self.before if p not in after]
        for p in changed + removed:
            if not inside(p, allowed) and not PLANTED(p):
                fail("files written outside the output folder", f"{self.name}: {p[len(self.root):]}")


def in_case(name, body):
    """Runs body(case) in a fresh folder under the session root, then checks where files appeared."""
    case = Case(name)
    try:
        body(case)
        case.check_writes()
    finally:
        with lock:
            counts["cases"] += 1
        shutil.rmtree(case.root, ignore_errors=True)


def PLANTED(p):
    return os.path.basename(p).startswith("planted")


# ---- fixtures: a valid table, policy, key pair and receipt, copied into every case ---------------


def make_fixtures():
    os.makedirs(FIX)
    shutil.copy(os.path.join(SRC, "cases/cpu/ssu.json"), os.path.join(FIX, "t.json"))
    with open(os.path.join(FIX, "p.json"), "w") as f:
        json.dump({"gates": ["correct"]}, f)
    with open(os.path.join(FIX, "suite.json"), "w") as f:
        json.dump({"cpu": [{"cases": "t.json", "candidate": "ssu.cpu_eigen", "baseline": "ssu.cpu_scalar",
                            "out": "s.json"}]}, f)
    subprocess.run([KGATE, "keygen", "k"], cwd=FIX, check=True, stdout=subprocess.DEVNULL, env=ENV)
    subprocess.run([KGATE] + RUN + ["--cases", "t.json"] + ARMS + ROW + FAST + ["--out", "r.json"], cwd=FIX,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    r = json.load(open(os.path.join(FIX, "r.json")))
    return r["body"]["predicate"]["samples"]["path"]


# ---- tables ------------------------------------------------------------------------------------

HOSTILE_SCALARS = [None, True, False, 0, -1, 1, 2 ** 31, 2 ** 63, -(2 ** 63), 10 ** 30, 1e308, -1e308, 0.5,
                   "", "x", "\x1b[31mred\x1b[0m", "<script>alert(1)</script>", "\u202e\u00e9\ud7ff", "a\nb",
                   "%s%n", "../../etc/passwd", "x" * 5000, [], {}, [1, 2], {"a": 1}]


def mutate(rng, doc):
    """doc with one random change somewhere inside it (a value retyped, an item dropped or added)."""
    if isinstance(doc, (dict, list)) and doc and rng.random() < 0.8:
        k = rng.choice(sorted(doc) if isinstance(doc, dict) else range(len(doc)))
        roll = rng.random()
        if roll < 0.15:
            del doc[k]
        elif roll < 0.25 and isinstance(doc, dict):
            doc[rng.choice(["extra", "gatez", "\x1b]0;t\x07", "id", "rows", "params"])] = rng.choice(HOSTILE_SCALARS)
        elif roll < 0.25:
            doc.append(copy.deepcopy(doc[k]))
        else:
            doc[k] = mutate(rng, doc[k])
        return doc
    return copy.deepcopy(rng.choice(HOSTILE_SCALARS))


def table_case(i):
    rng = random.Random(SEED * 1000 + i)
    tables = sorted(os.path.join(d, f) for d in (os.path.join(SRC, "cases"), os.path.join(SRC, "cases/cpu"))
                    for f in os.listdir(d) if f.endswith(".json") and f != "suites.json")
    src = rng.choice(tables)
    doc = json.load(open(src))
    for _ in range(rng.randint(1, 3)):
        doc = mutate(rng, doc)
    text = json.dumps(doc, ensure_ascii=rng.random() < 0.5)

    def body(c):
        cwd, run = c.cwd, c.run
        with open(os.path.join(cwd, "m.json"), "w") as f:
            f.write(text)
        # Rows that match nothing: the table is read and checked whole, then the run stops (exit 2);
        # the CPU arms run only the ssu rows kept small (a mutated size could run for minutes).
        rows = ["--rows", "no-such-row-*"] if "cpu/ssu" not in src or rng.random() < 0.5 else ROW
        run(RUN + ["--cases", "m.json"] + ARMS + rows + FAST + ["--out", "out/r.json"], {0, 1, 2})

    in_case(f"table {i} ({os.path.basename(src)})", body)


# ---- flags and policies --------------------------------------------------------------------------

VALUES = ["", "-1", "0", "1", "3", "nan", "inf", "-inf", "1e400", "2147483648", "99999999999999999999", "1.5", "x",
          ",", ",,", "correct,", "correct,strict", "limit(", "limit(-1)", "limit(0.05)", "drift(nan)", "p.json",
          "bad_policy.json", "unknown_keys.json", "t.json", "r.json", "k.key", "k.pub", "/dev/zero", "/proc/x",
          "out/", "out/x.json", "../escape.json", "/", ".", "\x1b[2J", "a" * 5000, "\u00e9\u202e", "-", "--",
          "export:/nonexistent.so:arm", "ssu.cpu_eigen", "ssu.cpu_scalar", "no.such.arm", "planted.fifo"]

FLAGS = {
    "run": ["--cases", "--rows", "--candidate", "--baseline", "--out", "--out-dir", "--force", "--policy", "--resume",
            "--sign", "--backend", "--timer", "--warm", "--groups", "--blocks", "--m", "--seed", "--warmup-us",
            "--warmup-calls", "--suite", "--json", "--simulate-ranks", "--gpus", "--rendezvous", "--rank-timeout",
            "--isolate"],
    "audit": ["--pubkey", "--json"],
    "report": ["--format", "--anchor", "--out"],
    "compare": ["--threshold", "--json", "--out"],
    "gate": ["--policy", "--against-tree", "--json"],
    "carryover": ["--json", "--out"],
    "index": ["--json", "--out"],
    "rerun": ["--peers", "--out-dir", "--replace", "--force", "--policy", "--sign", "--threshold", "--quiet",
              "--json", "--no-peaks"],
    "list": ["--cases-dir", "--export", "--json"],
    "env": ["--backend"],
    "keygen": [],
}
POSITIONAL = {"audit": ["r.json"], "report": ["r.json"], "compare": ["r.json", "r.json"], "gate": ["r.json"],
              "carryover": ["r.json"], "index": ["."], "rerun": ["r.json"], "keygen": ["newkey"]}
BOOLEAN = {"--force", "--resume", "--warm", "--json", "--isolate", "--replace", "--quiet", "--no-peaks"}


def flag_case(i):
    rng = random.Random(SEED * 2000 + i)
    cmd = rng.choice(sorted(FLAGS))
    argv = [cmd] + list(POSITIONAL.get(cmd, []))
    if cmd == "run":
        argv = RUN + ["--cases", "t.json"] + ARMS + ROW + FAST + ["--out", "out/r.json"]
    if rng.random() < 0.2 and len(argv) > 1 and cmd != "run":
        argv[1] = rng.choice(VALUES)  # a hostile positional
    for flag in rng.sample(FLAGS[cmd], min(len(FLAGS[cmd]), rng.randint(0, 3))):
        argv += [flag] if flag in BOOLEAN else [flag, rng.choice(VALUES)]
    if cmd == "run" and "--rendezvous" in argv:
        return flag_case(i + 100000)  # waits for peer ranks by design; not a hostile-input case

    def body(c):
        cwd, run = c.cwd, c.run
        with open(os.path.join(cwd, "bad_policy.json"), "w") as f:
            f.write('{"gates": ["correct"], "limt": 0.05}')
        with open(os.path.join(cwd, "unknown_keys.json"), "w") as f:
            f.write('{"gatez": ["correct"]}')
        os.mkfifo(os.path.join(cwd, "planted.fifo"))
        run(argv, {0, 1, 2}, timeout=60 if cmd in ("run", "rerun") else TIMEOUT_S)

    in_case(f"flags {i}", body)


# ---- readers -------------------------------------------------------------------------------------

KINDS = ["fifo", "dev_zero", "folder", "loop", "missing", "empty", "truncated", "garbage", "deep", "huge"]


def plant(cwd, name, kind, valid):
    p = os.path.join(cwd, name)
    for q in (p, p + ".b"):
        if os.path.isdir(q) and not os.path.islink(q):
            os.rmdir(q)
        elif os.path.lexists(q):
            os.remove(q)
    if kind == "fifo":
        os.mkfifo(p)
    elif kind == "dev_zero":
        os.symlink("/dev/zero", p)
    elif kind == "folder":
        os.mkdir(p)
    elif kind == "loop":
        os.symlink(name + ".b", p)
        os.symlink(name, p + ".b")
    elif kind == "missing":
        pass
    else:
        data = {"empty": b"", "truncated": valid[: len(valid) // 2], "garbage": bytes(range(256)) * 64,
                "deep": b"[" * 200000 + b"]" * 200000, "huge": b""}[kind]
        with open(p, "wb") as f:
            f.write(data)
            if kind == "huge":  # a sparse file past the 1 GiB read limit: costs no disk
                f.truncate((1 << 30) + 4096)


def reader_slots(sidecar):
    """(command, file it reads, exit codes the contract allows when that file is hostile)."""
    run = RUN + ["--cases", "t.json"] + ARMS + ROW + FAST + ["--out", "out/r.json"]
    return [
        (["audit", "r.json"], "r.json", {1, 2}),
        (["audit", "r.json", "--pubkey", "k.pub"], "k.pub", {1, 2}),
        (["audit", "r.json"], sidecar, {1, 2}),
        (["report", "r.json"], "r.json", {1, 2}),
        (["report", "r.json", "--format", "csv"], sidecar, {1, 2}),
        (["compare", "r.json", "r2.json"], "r2.json", {1, 2}),
        (["gate", "r.json"], "r.json", {1, 2}),
        (["gate", "r.json", "--policy", "gp.json"], "gp.json", {2}),
        (["gate", "r.json", "--against-tree", "tree"], "tree", {1, 2}),
        (["carryover", "r.json"], "r.json", {1, 2}),
        (["carryover", "r.json"], sidecar, {1, 2}),
        (["index", "ix"], "ix", {1, 2}),
        (["rerun", "r.json", "--out-dir", "rr", "--quiet", "--no-peaks"], "r.json", {1, 2}),
        (RUN + ["--cases", "tt.json"] + ARMS + FAST + ["--out", "out/r.json"], "tt.json", {2}),
        (run + ["--policy", "pp.json"], "pp.json", {2}),
        (run + ["--sign", "sk.key"], "sk.key", {2}),
        (RUN + ["--suite", "ss.json", "--out-dir", "out"], "ss.json", {2}),
    ]


def reader_case(i, slot, kind):
    argv, name, codes = slot
    # A folder is a fine --against-tree; an empty journal-less index folder is "no receipts".
    if kind == "folder" and name in ("tree", "ix"):
        codes = {0, 1, 2}

    def body(c):
        cwd, run = c.cwd, c.run
        shutil.copy(os.path.join(cwd, "r.json"), os.path.join(cwd, "r2.json"))
        valid = open(os.path.join(cwd, name if os.path.isfile(os.path.join(cwd, name)) else "t.json"), "rb").read()
        plant(cwd, name, kind, valid)
        run(argv, codes)

    in_case(f"reader {i} ({name}: {kind})", body)


def journal_case(i, kind):
    """The run's own journal made hostile: refused before any work, or (no whole header line: a
    kill while it was created) started over, by a fresh run and by --resume alike."""
    argv = RUN + ["--cases", "t.json"] + ARMS + ROW + FAST + ["--out", "out/r.json", "--force"]
    torn = kind in ("empty", "truncated", "deep")
    fresh_ok, resume_ok = ({0, 1}, {0, 1}) if torn else ({0, 1}, {2}) if kind == "missing" else ({2}, {2})

    def body(c):
        out = os.path.join(c.cwd, "out")
        os.mkdir(out)
        for extra, ok in (([], fresh_ok), (["--resume"], resume_ok)):
            plant(out, "r.json.journal", kind, b'{"kind":"header"}\n')
            if c.run(argv + extra, ok) in (0, 1):
                left = sorted(n for n in os.listdir(out) if n.endswith(".journal") or ".tmp." in n)
                if left:
                    fail("orphan files", f"journal {kind}: a finished run left {left}")

    in_case(f"journal {i} ({kind})", body)


# ---- kill and resume -----------------------------------------------------------------------------


def kill_case(i, run_s):
    rng = random.Random(SEED * 3000 + i)
    # Late kills are the ones that land on the sidecar, receipt and journal steps at the end.
    at = run_s * (rng.random() if i % 2 else 0.85 + 0.3 * rng.random())
    argv = RUN + ["--cases", "t.json"] + ARMS + ["--rows", "ssu-cpu-h8g1*,ssu-cpu-h16g2-b4*", "--groups", "2",
                                                   "--blocks", "2", "--m", "2", "--warmup-calls", "1",
                                                   "--warmup-us", "20000", "--out", "out/r.json", "--force"]

    def body(c):
        cwd, run = c.cwd, c.run
        c.mark(argv)
        p = subprocess.Popen([KGATE] + argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
        time.sleep(at)
        p.send_signal(signal.SIGKILL)
        p.wait()
        out = os.path.join(cwd, "out")
        journal = os.path.exists(os.path.join(out, "r.json.journal"))
        run(argv + (["--resume"] if journal else []), {0, 1}, timeout=60)
        run(["audit", "out/r.json"], {0})
        r = json.load(open(os.path.join(out, "r.json")))
        want = {"r.json", r["body"]["predicate"]["samples"]["path"]}
        left = set(os.listdir(out))
        if left != want:
            fail("orphan files", f"kill {i} at {at:.2f} s: left {sorted(left - want)} beside the receipt")
        # A second run over it (--force) keeps only its own pair as well.
        run(argv, {0, 1}, timeout=60)
        r = json.load(open(os.path.join(out, "r.json")))
        left = set(os.listdir(out))
        if left != {"r.json", r["body"]["predicate"]["samples"]["path"]}:
            fail("orphan files", f"kill {i}: a forced rerun left {sorted(left)}")

    in_case(f"kill {i}", body)


def timed_run_s():
    d = tempfile.mkdtemp(dir=ROOT)
    for f in FIXTURES:
        shutil.copy(os.path.join(FIX, f), d)
    t0 = time.monotonic()
    subprocess.run([KGATE] + RUN + ["--cases", "t.json"] + ARMS + ["--rows", "ssu-cpu-h8g1*,ssu-cpu-h16g2-b4*",
                                                                   "--groups", "2", "--blocks", "2", "--m", "2",
                                                                   "--warmup-calls", "1", "--warmup-us", "20000",
                                                                   "--out", "timed.json"],
                   cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, check=True)
    shutil.rmtree(d)
    return time.monotonic() - t0


def main():
    global ROOT, FIX, FIXTURES, ENV
    ROOT = tempfile.mkdtemp(prefix="kgate_fuzz_")
    FIX = os.path.join(ROOT, "fixtures")
    ENV = dict(os.environ, KGATE_DATA_DIR=SRC)
    t0 = time.monotonic()
    try:
        sidecar = make_fixtures()
        FIXTURES = sorted(os.listdir(FIX))
        run_s = timed_run_s()
        jobs = [(table_case, (i,)) for i in range(int(160 * SCALE))]
        jobs += [(flag_case, (i,)) for i in range(int(220 * SCALE))]
        n = 0
        for slot in reader_slots(sidecar):
            for kind in KINDS:
                jobs.append((reader_case, (n, slot, kind)))
                n += 1
        jobs += [(journal_case, (i, k)) for i, k in enumerate(KINDS)]
        jobs += [(kill_case, (i, run_s)) for i in range(max(2, int(8 * SCALE)))]
        with futures.ThreadPoolExecutor(max_workers=2) as pool:
            for f in [pool.submit(fn, *args) for fn, args in jobs]:
                f.result()
        stray = [n for n in os.listdir(ROOT) if n != "fixtures"]
        if stray:
            fail("files written outside the output folder", f"left in the session folder: {stray[:5]}")
    finally:
        shutil.rmtree(ROOT, ignore_errors=True)
    for line in failures:
        print(line)
    print(f"{counts['cases']} cases: " + ", ".join(f"{v} {k}" for k, v in counts.items() if k != "cases") +
          f" ({time.monotonic() - t0:.0f} s)")
    return 1 if any(v for k, v in counts.items() if k != "cases") else 0


if __name__ == "__main__":
    sys.exit(main())
