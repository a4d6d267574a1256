#!/usr/bin/env bats
# init/relro.c: the binary's relocated constant data is read-only once it
# runs (musl's static-pie start-up leaves that to the program).

load helpers/common

setup() {
    TMP=$(mktemp -d)
}

teardown() {
    [ -z "${pid:-}" ] || { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; }
    rm -rf "$TMP"
}

@test "the PT_GNU_RELRO pages are mapped read-only while nccl-init supervises" {
    # VirtAddr and MemSiz of GNU_RELRO, as the linker laid them out
    read -r vaddr memsz < <(readelf -lW "$NI" | awk '$1 == "GNU_RELRO" { print $3, $6 }')
    [ -n "$vaddr" ] || fail "$NI has no GNU_RELRO segment"
    "$NI" -q --sinks none -- sleep 30 &
    pid=$!
    local bin base="" i
    bin=$(readlink -f "$NI")
    # the load address: the mapping of the binary's file offset 0
    for i in $(seq 50); do
        base=$(awk -v f="$bin" '$6 == f && $3 == "00000000" { split($1, r, "-"); print r[1]; exit }' "/proc/$pid/maps")
        [ -n "$base" ] && grep -q sleep "/proc/$pid/task/$pid/children" 2>/dev/null && break
        sleep 0.1
    done
    [ -n "$base" ] || fail "no mapping of $bin in /proc/$pid/maps"
    # whole pages from the start (rounded down) to the end (rounded down)
    local start=$(((0x$base + vaddr) & ~4095)) end=$(((0x$base + vaddr + memsz) & ~4095))
    [ "$end" -gt "$start" ]
    # every mapping that overlaps [start, end) must be without 'w'
    local range perms lo hi seen=0
    while read -r range perms _; do
        lo=$((0x${range%-*})) hi=$((0x${range#*-}))
        if [ "$lo" -lt "$end" ] && [ "$hi" -gt "$start" ]; then
            seen=1
            [[ $perms != *w* ]] || fail "RELRO range $(printf '%x-%x' "$start" "$end") is mapped $perms: $range"
        fi
    done <"/proc/$pid/maps"
    [ "$seen" = 1 ] || fail "no mapping covers the RELRO range"
}
