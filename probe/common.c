/* nccl-probe: Error handling, CUDA/NCCL basics and small helpers. */
#include "probe.h"
#include "lib/text.h"

/* The command being run; the first word of the probe's errors. */
const char *cmd = "nccl-probe";

void usage_error(const char *fmt, ...)
{
    char m[512] = "";
    struct buf b = BUF_FIXED(m);
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    die(EXIT_USAGE, "%s (nccl-probe --help)", m);
}

const char usage_text[] =
    "usage: nccl-probe COMMAND [OPTIONS]\n"
    "  topo [--json] [--rules FILE] [--root DIR]\n"
    "      devices, PCI bus ids, P2P access and performance rank, NCCL version,\n"
    "      and the profile auto.rules suggests (the same choice as nccl-init detect)\n"
    "  params [--profile FILE]\n"
    "      one communicator per visible GPU; which variables NCCL itself logs as\n"
    "      \"set by environment\"; exit 1 when a variable of the resolved profile\n"
    "      (" RECORD_ENV ", or FILE) did not reach NCCL\n"
    "  allreduce [--min-bytes 8] [--max-bytes 64M] [--iters 20] [--warmup 5] [--json]\n"
    "      all-reduce (float, sum) over all visible GPUs in this process\n"
    "  suggest [--rules FILE] [--root DIR] [--gpu MODEL]... [--json]\n"
    "      the rule evaluation of topo without CUDA: one --gpu per visible GPU\n"
    "rules: --rules, else " DEFAULT_RULES ", else ./profiles/auto.rules,\n"
    "       else profiles/auto.rules next to the binary's directory\n"
    "exit: 0 ok, 1 check failed, 2 usage, 3 no GPU or driver, 4 CUDA/NCCL error\n";

/* ---------------------------------------------------------------- CUDA, NCCL */


/* The number of visible devices, or one line and exit 3. Everything that
 * touches a GPU starts here, so no other CUDA call runs without one. */
int devices_or_exit(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess)
        die(EXIT_NO_GPU, "%s: no usable GPU: %s (%s from cudaGetDeviceCount)", cmd,
            cudaGetErrorString(e), cudaGetErrorName(e));
    if (n <= 0)
        die(EXIT_NO_GPU, "%s: no usable GPU: cudaGetDeviceCount found no device", cmd);
    return n;
}

void nccl_version(char *out, size_t size, int *code)
{
    int v = 0;
    NCCL(ncclGetVersion(&v));
    /* NCCL_VERSION(X,Y,Z): X*10000 + Y*100 + Z since 2.9, X*1000 + Y*100 + Z before */
    if (v >= 20900)
        snprintf(out, size, "%d.%d.%d", v / 10000, v % 10000 / 100, v % 100);
    else
        snprintf(out, size, "%d.%d.%d", v / 1000, v % 1000 / 100, v % 100);
    if (code)
        *code = v;
}

/* ---------------------------------------------------------------- small helpers */

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        die(EXIT_RUNTIME, "%s: out of memory", cmd);
    return p;
}

/* A whole (small) file, NUL-terminated, or NULL with errno set. */
char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *s = xcalloc(cap, 1);
    size_t r;
    while ((r = fread(s + len, 1, cap - len - 1, f)) > 0) {
        len += r;
        if (len + 1 == cap) {
            char *t = realloc(s, cap *= 2);
            if (!t)
                die(EXIT_RUNTIME, "%s: out of memory", cmd);
            s = t;
        }
    }
    int err = ferror(f) ? EIO : 0;
    fclose(f);
    if (err) {
        xfree(s);
        errno = err;
        return NULL;
    }
    s[len] = '\0';
    return s;
}

/* b's text on stdout, after what printf put there; b is freed. */
void print_buf(struct buf *b)
{
    fwrite(b->data, 1, b->len, stdout);
    buf_free(b);
}

/* s as a JSON string on stdout, escaped as nccl-init's JSON is
 * (lib/text.c json_string). */
void print_json_string(const char *s)
{
    struct buf b = { 0 };
    json_string(&b, s);
    print_buf(&b);
}

/* 8, 4096, 4K, 64M, 1G (powers of 1024). */
bool parse_bytes(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)*s))
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    if (errno || *end || v > (SIZE_MAX >> shift))
        return false;
    *out = (size_t)(v << shift);
    return true;
}

/* A whole integer in C syntax (8, 0x8, 010), nothing after it. */
bool whole_int(const char *s, long long *v)
{
    char *end;
    errno = 0;
    *v = strtoll(s, &end, 0);
    return *s && end != s && !errno && !*end;
}

bool parse_count(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !isdigit((unsigned char)*s) || *end || v < 0 || v > INT_MAX)
        return false;
    *out = (int)v;
    return true;
}
