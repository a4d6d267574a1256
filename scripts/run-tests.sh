#!/usr/bin/env bash
# Runs the unit tests (ASan+UBSan) and the bats suites, against the release
# binary and again against the sanitizer build, and ends with one line:
# "N passed, N failed[, N skipped]".
#
# usage: run-tests.sh UNIT_BINARY...
set -u
cd "$(dirname "$0")/.."

passed=0 failed=0 skipped=0
log=build/test-results.tap
: >"$log"

# Counts a TAP stream (bats --tap, cmocka's TAP output) read on stdin,
# echoing it.
count_tap() {
    local line
    while IFS= read -r line; do
        printf '%s\n' "$line"
        printf '%s\n' "$line" >>"$log"
        case "$line" in
            "not ok "*) failed=$((failed + 1)) ;;
            "ok "*"# skip"* | "ok "*"# SKIP"*) skipped=$((skipped + 1)) ;;
            "ok "*) passed=$((passed + 1)) ;;
        esac
    done
}

export LIBNCCL_PATH=${LIBNCCL_PATH:-/usr/local/cuda/lib64/libnccl.so.2}

for t in "$@"; do
    echo "# unit: $t"
    before=$((passed + failed))
    count_tap < <(CMOCKA_MESSAGE_OUTPUT=tap "$t" 2>&1)
    # A unit binary that crashed before printing its plan counts as a failure.
    if [ $((passed + failed)) = "$before" ]; then
        echo "not ok - $t produced no results"
        failed=$((failed + 1))
    fi
done

# Run mode writes its sinks to real paths (/etc, the Python stdlib, /run):
# the suites run in a private mount namespace over copy-on-write copies.
suites=(tests/*.bats)
echo "# bats: release binary build/nccl-init"
count_tap < <(NCCL_INIT_BIN="$PWD/build/nccl-init" scripts/sandbox.sh bats --tap "${suites[@]}" 2>&1)

# The same suites under ASan+UBSan (its options are built in, so that they
# survive the tests' env -i); not the container tests, whose images build
# their own nccl-init, nor make demo's, which runs the release binary.
echo "# bats: sanitizer build build/san/nccl-init"
count_tap < <(NCCL_INIT_BIN="$PWD/build/san/nccl-init" scripts/sandbox.sh \
    bats --tap --filter-tags '!container,!demo' "${suites[@]}" 2>&1)

if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
