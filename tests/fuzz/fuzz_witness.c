/* libFuzzer harness: verify's witness parser (inspect/witness_read.c), fed
 * what any program could put in a memfd named nccl-init-witness. The input
 * is the witness's text; the process it should name is pid 4242, started at
 * 812345, so that an input with the header "nccl-init-witness 1 pid=4242
 * start=812345" reaches every other line's parser. It must never crash,
 * never read or allocate past the text, and every string of a trusted
 * witness must be there to read. Build and run: make fuzz. */
#include "inspect/witness_read.h"
#include "lib/mem.h"
#include "lib/witness.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Touches every byte of s: ASan reports a string that is not all there. */
static size_t touch(const char *s)
{
    return s ? strlen(s) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > WITNESS_SIZE_MAX + WITNESS_LINE_MAX)
        return 0; /* witness_read reads no more */
    char *text = xmalloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    struct witness w = { 0 };
    witness_parse(&w, text, size, 4242, 812345);
    size_t n = touch(w.why) + touch(w.no_record) + touch(w.rec_path) + touch(w.rec_digest) +
               touch(w.rec_profile);
    for (size_t i = 0; i < w.ncopies; i++)
        n += touch(w.copies[i].version) + touch(w.copies[i].suffix) +
             touch(w.copies[i].interface) + touch(w.copies[i].lib);
    for (size_t i = 0; i < w.nasks; i++) {
        const struct witness_ask *a = &w.asks[i];
        n += touch(a->name) + touch(a->value) + touch(a->own) + touch(a->record);
        if (witness_last_ask(&w, a->copy, a->name) == NULL)
            __builtin_trap(); /* an ask the lookup cannot find again */
    }
    if (w.state == WITNESS_TRUSTED && w.why)
        __builtin_trap(); /* trusted, and yet a reason not to be */
    witness_free(&w);
    return (int)(n & 0);
}
