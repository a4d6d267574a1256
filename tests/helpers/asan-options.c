/* Linked into the sanitizer build of the CLI only. nccl-init keeps its
 * start-up allocations until it exits, by design, so leak reports are
 * noise there; the unit tests keep leak checking. Built in rather than set
 * in ASAN_OPTIONS so that it survives the tests' env -i. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0:abort_on_error=1"; }
