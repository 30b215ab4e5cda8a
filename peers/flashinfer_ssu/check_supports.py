#!/usr/bin/env python3
"""CPU-side check of libkgate_flashinfer_ssu.so, no GPU needed: the table (one arm, its archs
and kernel names), supports() on every row of a case table with kgate's layout of the row
(kernels/ssu/gpu_context.cpp: x_stride = nheads*64 + fused_extra, bc_stride = ngroups*128 +
fused_extra, 256-byte aligned buffers like cudaMalloc's), a few malformed arguments it must
refuse, and launch() returning an error, not crashing, where no device is present.

Expected: a row is refused exactly when an x/z or B/C row stride is not a multiple of 16 bytes
(FlashInfer's 16-byte row loads and bulk copies). Exits 1 on any disagreement.

dlopen needs libcuda.so.1; on a machine without a driver point it at the toolkit's stub:
  d=$(mktemp -d); ln -s /usr/local/cuda/lib64/stubs/libcuda.so $d/libcuda.so.1
  LD_LIBRARY_PATH=$d python3 peers/flashinfer_ssu/check_supports.py LIB [cases/ssu.json]
"""
import ctypes as C
import json
import sys

P, N = 64, 128


class SsuArgs(C.Structure):  # kernels/ssu/abi.h
    _fields_ = [(n, C.c_void_p) for n in ("state", "slots", "x", "B", "C", "z", "out", "dt", "A", "D", "dt_bias")] + [
        (n, C.c_int) for n in ("batch", "nheads", "ngroups")] + [
        ("x_stride", C.c_longlong), ("bc_stride", C.c_longlong)] + [
        (n, C.c_int) for n in ("state_bf16", "io_bf16", "weight_bf16", "softplus", "has_z")]


SUPPORTS = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_char_p, C.c_size_t)
LAUNCH = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_void_p, C.c_char_p, C.c_size_t)


class Arm(C.Structure):  # harness/export/kgate_export.h
    _fields_ = [("name", C.c_char_p), ("description", C.c_char_p), ("kernel_names", C.POINTER(C.c_char_p)),
                ("kernel_count", C.c_size_t), ("archs", C.POINTER(C.c_char_p)), ("arch_count", C.c_size_t),
                ("supports", SUPPORTS), ("launch", LAUNCH)]


class Table(C.Structure):
    _fields_ = [("abi_version", C.c_uint32), ("family", C.c_char_p), ("arms", C.POINTER(Arm)), ("arm_count", C.c_size_t)]


def args_of(p):
    """ssu_args for one row, as kgate's GPU context fills it, on fake 256-byte aligned buffers."""
    a = SsuArgs()
    for i, name in enumerate(("state", "slots", "x", "B", "C", "out", "dt", "A", "D", "dt_bias")):
        setattr(a, name, (i + 1) << 32)
    a.z = (11 << 32) if p["has_z"] else None
    a.batch, a.nheads, a.ngroups = p["batch"], p["nheads"], p["ngroups"]
    a.x_stride = p["nheads"] * P + p["fused_extra"]
    a.bc_stride = p["ngroups"] * N + p["fused_extra"]
    a.state_bf16, a.io_bf16, a.weight_bf16 = (int(p[k] == "bf16") for k in ("state_dtype", "io_dtype", "weight_dtype"))
    a.softplus, a.has_z = int(p["softplus"]), int(p["has_z"])
    return a


def expected_refused(a):
    io = 2 if a.io_bf16 else 4
    return (a.x_stride * io) % 16 != 0 or (a.bc_stride * io) % 16 != 0


def main():
    lib_path = sys.argv[1]
    cases = sys.argv[2] if len(sys.argv) > 2 else "cases/ssu.json"
    lib = C.CDLL(lib_path, mode=C.RTLD_LOCAL)
    lib.kgate_export_table.restype = C.POINTER(Table)
    t = lib.kgate_export_table().contents
    bad = []
    arm = t.arms[0]
    kernels = [arm.kernel_names[i].decode() for i in range(arm.kernel_count)]
    archs = [arm.archs[i].decode() for i in range(arm.arch_count)]
    print(f"abi {t.abi_version}, family {t.family.decode()}, {t.arm_count} arm: {arm.name.decode()}")
    print(f"  archs {archs}, kernels {kernels}")
    if (t.abi_version, t.family, t.arm_count, arm.name, archs) != (1, b"ssu", 1, b"flashinfer_stock", ["sm_90a"]):
        bad.append("table")

    table = json.load(open(cases))
    defaults = {"io_dtype": "bf16", "weight_dtype": "fp32", "softplus": True, "has_z": False, "pad_slots": 0,
                "fused_extra": 0, **table.get("defaults", {})}
    why = C.create_string_buffer(512)
    accepted = 0
    for row in table["rows"]:
        a = args_of({**defaults, **row["params"]})
        rc = arm.supports(C.addressof(a), why, len(why))
        accepted += rc == 0
        if rc:
            print(f"  refused {row['id']}: {why.value.decode()}")
        if bool(rc) != expected_refused(a):
            bad.append(row["id"])
    print(f"  {accepted} of {len(table['rows'])} rows accepted")

    # Malformed arguments: each must be refused.
    base = args_of({**defaults, "batch": 8, "nheads": 128, "ngroups": 8, "state_dtype": "bf16"})
    for what, change in [("state 16-byte aligned only", lambda a: setattr(a, "state", a.state + 16)),
                         ("z missing with has_z", lambda a: setattr(a, "has_z", 1)),
                         ("ngroups not dividing nheads", lambda a: setattr(a, "ngroups", 3)),
                         ("x stride shorter than a row", lambda a: setattr(a, "x_stride", 64)),
                         ("batch 0", lambda a: setattr(a, "batch", 0))]:
        a = SsuArgs.from_buffer_copy(base)
        change(a)
        rc = arm.supports(C.addressof(a), why, len(why))
        print(f"  {what}: {'refused: ' + why.value.decode() if rc else 'ACCEPTED'}")
        if not rc:
            bad.append(what)

    # Without a device the launch must fail with a message (the stub answers every driver call).
    err = C.create_string_buffer(512)
    rc = arm.launch(C.addressof(base), None, err, len(err))
    print(f"  launch without a device: rc {rc}: {err.value.decode()}")
    if rc == 0 or not err.value:
        bad.append("launch without a device")

    if bad:
        print("FAILED: " + ", ".join(bad))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
