#!/usr/bin/env bats
# init/'s layout (init/README.md): each part includes only what its row of
# the table allows, every include is spelled from init/, and no include
# cycle (scripts/check-layout.py).

load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

@test "layout: init/ keeps its parts' include rules, with no cycle" {
    run python3 scripts/check-layout.py init
    assert_success
    assert_output ""
}

@test "layout: the check sees a cycle and a part that reaches too far" {
    cp -r init "$BATS_TEST_TMPDIR/init"
    local t=$BATS_TEST_TMPDIR/init
    # mem.c using the log again, and verify reaching into the sinks
    sed -i '0,/^#include <string.h>/s||#include <string.h>\n#include "lib/log.h"|' "$t/lib/mem.c"
    sed -i '0,/^#include "lib\/paths.h"/s||#include "sinks/sinks.h"|' "$t/inspect/verify.c"
    run python3 scripts/check-layout.py "$t"
    assert_failure
    assert_line --partial "inspect/verify.c: inspect/ may not include \"sinks/sinks.h\""
    assert_line --regexp '^include cycle: .*lib/mem -> lib/log'
}
