#!/usr/bin/env bats
# The oracle: check and render against the real libnccl 2.28.9, case by case
# (tests/oracle/cases.tsv, run by tests/helpers/nccl-oracle.py). For every
# case NCCL itself shows what it reads (its "set by environment to N" and
# "Invalid value" lines, and the return values of its own functions), and
# `nccl-init check` must give the case's verdict and `render --format json`
# the same reading. No GPU: ncclGetUniqueId runs NCCL's one-time init, and
# the other parameters are read through NCCL's own accessors
# (ncclParam<Name>, ncclGetLevel, parseList) at their addresses in the
# library's symbol table. What only a communicator reads is in
# tests/gpu/oracle.bats.

load helpers/common

setup() {
    LIB=${LIBNCCL_PATH:-/usr/local/cuda/lib64/libnccl.so.2}
    [ -r "$LIB" ] || skip "no libnccl.so.2 on this machine"
    ORACLE=$BATS_TEST_DIRNAME/helpers/nccl-oracle.py
    CASES=$BATS_TEST_DIRNAME/oracle/cases.tsv
}

# Runs the cases of the families given; prints the report (shown on failure).
oracle() {
    local args=() f
    for f in "$@"; do args+=(--family "$f"); done
    run python3 "$ORACLE" run "$NI" "$LIB" "$CASES" "${args[@]}"
    echo "$output"
    assert_success
    assert_line --regexp '^# [0-9]+ cases, 0 failed'
}

@test "oracle: integers as ncclLoadParam parses them (strtoll base 0, no end check)" {
    oracle int-syntax
}

@test "oracle: integers in the C type NCCL keeps them in" {
    oracle int-type
}

@test "oracle: ranges and NCCL's own special values" {
    oracle int-range
}

@test "oracle: switches, on when 1 or when nonzero" {
    oracle switch
}

@test "oracle: InfiniBand parameters" {
    oracle ib
}

@test "oracle: ncclGetLevel's levels and old numbers; NCCL_P2P_DISABLE" {
    oracle level p2p-disable
}

@test "oracle: parseList for NCCL_PROTO and NCCL_ALGO, matrix by matrix" {
    oracle list
}

@test "oracle: what ncclGetUniqueId's init reads: debug settings, socket, bootstrap" {
    oracle debug socket
}

@test "oracle: strings, and what only a communicator reads (check and render here)" {
    oracle gpu string
}

@test "the case file: at least 150 cases over every family; every key is one NCCL 2.28.9 reads" {
    run python3 - "$CASES" "$BATS_TEST_DIRNAME/../init/nccl/nccl_params.tsv" <<'PY'
import sys
names = {l.split("\t")[0] for l in open(sys.argv[2]) if not l.startswith("#")}
cases = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
fams = {c[0] for c in cases}
want = {"int-syntax", "int-type", "int-range", "switch", "ib", "level", "p2p-disable", "list",
        "debug", "socket", "gpu", "string"}
assert len(cases) >= 150, len(cases)
assert fams == want, fams ^ want
bad = [c for c in cases if c[1] not in names or c[4] not in ("ok", "warning", "error")]
assert not bad, bad
print(len(cases), "cases")
PY
    assert_success
}
