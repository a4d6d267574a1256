# Sourced by the benchmarks that run nccl-init with sinks: the machine's own
# sink files must be the same afterwards. guard_begin before the runs;
# guard_end NAME after them prints "system files unchanged: ..." or, when
# one changed, the difference and exits 1.

guarded_files() {
	local py stdlib
	echo /etc/environment /etc/nccl.conf /run/nccl-init
	for py in /etc/python3*/sitecustomize.py /usr/lib/python3*/sitecustomize.py \
		/usr/local/lib/python3*/sitecustomize.py; do
		[[ -e $py ]] && echo "$py"
	done
	stdlib=$(python3 -c 'import sysconfig; print(sysconfig.get_path("stdlib"))' 2>/dev/null) &&
		echo "$stdlib/sitecustomize.py"
}

guard_snapshot() {
	local f
	for f in $(guarded_files); do
		if [[ -d $f ]]; then
			echo "$f/ $(find "$f" -type f -exec md5sum {} + 2>/dev/null | sort | md5sum | cut -c1-32)"
		elif [[ -e $f ]]; then
			md5sum "$f"
		else
			echo "absent $f"
		fi
	done
}

guard_begin() {
	GUARD_BEFORE=$(guard_snapshot)
}

guard_end() {
	local after
	after=$(guard_snapshot)
	if [[ $GUARD_BEFORE != "$after" ]]; then
		echo "$1: SYSTEM FILES CHANGED during the benchmark:" >&2
		diff <(echo "$GUARD_BEFORE") <(echo "$after") >&2 || true
		exit 1
	fi
	echo "system files unchanged: $(guarded_files | tr '\n' ' ')"
}

# bench_writer NCCL-INIT ARGS...: nccl-init ARGS (options only) as the
# record's writer, left running (its command sleeps) until the benchmark
# exits: the readers take a record only while the nccl-init that wrote it
# runs. Waits until it has started its command.
bench_writer() {
	local ni=$1 ready
	shift
	ready=$(mktemp -u /tmp/nccl-init-bench-writer.XXXXXX)
	"$ni" -q "$@" -- sh -c ': >"$1"; exec sleep 100000' sh "$ready" 2>/dev/null &
	BENCH_WRITERS+=("$!")
	trap 'kill "${BENCH_WRITERS[@]}" 2>/dev/null || true' EXIT
	local _
	for _ in $(seq 300); do
		[[ -e $ready ]] && { rm -f "$ready"; return 0; }
		sleep 0.05
	done
	echo "bench_writer: $ni $* did not start its command" >&2
	return 1
}
