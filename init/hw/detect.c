#include "hw/detect.h"

#include "lib/log.h"
#include "lib/fileio.h"
#include "lib/mem.h"
#include "lib/sort.h"
#include "lib/text.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

const char iommu_modes[3][9] = { "off", "identity", "dma" };
const char acs_modes[4][11] = { "none", "off", "unreadable", "on" };

/* A sysfs attribute of a PCI device, such as "0x10de\n"; ~0 when unreadable. */
static unsigned long hex_file(const char *root, const char *dev, const char *name)
{
    struct buf p = { 0 };
    buf_printf(&p, "%s/sys/bus/pci/devices/%s/%s", root, dev, name);
    char *t;
    size_t len;
    long long v = -1;
    if (read_file(p.data, 4096, &t, &len) == 0) {
        parse_c_integer(t, &v);
        xfree(t);
    }
    buf_free(&p);
    return (unsigned long)v;
}

/* "Model:           NVIDIA H100 80GB HBM3" -> the value, trimmed. */
static void field(const char *text, const char *name, char *out, size_t size)
{
    const char *p = text;
    size_t n = strlen(name);
    while (p && strncmp(p, name, n) != 0)
        p = (p = strchr(p, '\n')) ? p + 1 : NULL;
    if (!p)
        return;
    p += n + strspn(p + n, " \t");
    size_t l = strcspn(p, "\n");
    while (l && (p[l - 1] == ' ' || p[l - 1] == '\t'))
        l--;
    if (l >= size)
        l = size - 1;
    memcpy(out, p, l);
    out[l] = '\0';
}

static struct gpu *add_gpu(struct hardware *h, size_t *cap, const char *bus)
{
    grow((void **)&h->gpus, cap, h->found + 1, sizeof *h->gpus);
    struct gpu *g = &h->gpus[h->found++];
    memset(g, 0, sizeof *g);
    struct buf b = BUF_FIXED(g->bus);
    buf_str(&b, bus);
    g->numa = g->group = -1;
    return g;
}

static int cmp_gpu(const void *a, const void *b)
{
    return strcmp(((const struct gpu *)a)->bus, ((const struct gpu *)b)->bus);
}

/* How many devices a visibility list leaves: NULL or "all" leaves them all;
 * "none", "void" or "" none; otherwise one per entry (CUDA stops at the
 * first invalid index, -1 being the usual way to hide everything). */
static size_t visible(const char *list, size_t found)
{
    if (!list || strcmp(list, "all") == 0)
        return found;
    size_t n = 0;
    for (const char *s = list; *s;) {
        size_t l = strcspn(s, ",");
        if (l == 0 || (s[0] == '-' && s[1] >= '0' && s[1] <= '9') || strncmp(s, "none", l) == 0 ||
            strncmp(s, "void", l) == 0)
            break;
        n++;
        s += l + (s[l] == ',');
    }
    return n < found ? n : found;
}

/* A GPU's IOMMU group, from the link iommu_group ->
 * .../kernel/iommu_groups/N, and through it the group's type (the
 * kernel's Documentation/ABI/testing/sysfs-kernel-iommu_groups):
 * identity (passthrough), DMA or DMA-FQ (translated), blocked, unmanaged;
 * empty where the kernel, before 5.11, has no type file. Returns the GPU's
 * IOMMU_*: without a group IOMMU_OFF, and every type but identity counts
 * as translated. */
static unsigned iommu_of(struct gpu *g, const char *r)
{
    char link[128], *t;
    size_t len;
    struct buf p = { 0 };
    buf_printf(&p, "%s/sys/bus/pci/devices/%s/%s", r, g->bus, "iommu_group");
    ssize_t n = readlink(p.data, link, sizeof link - 1);
    if (n > 0) {
        long long id = 0;
        link[n] = '\0';
        t = strrchr(link, '/');
        parse_c_integer(t ? t + 1 : link, &id);
        g->group = (int)id;
        buf_str(&p, "/type");
        if (read_file(p.data, 64, &t, &len) == 0) {
            /* letters and '-', as the kernel writes them: safe in JSON */
            for (size_t l = 0; l < sizeof g->iommu - 1 &&
                               (t[l] == '-' || (unsigned char)((t[l] | 32) - 'a') < 26);
                 l++)
                g->iommu[l] = t[l];
            xfree(t);
        }
    }
    buf_free(&p);
    if (n <= 0)
        return IOMMU_OFF;
    return strcmp(g->iommu, iommu_modes[IOMMU_IDENTITY]) == 0 ? IOMMU_IDENTITY : IOMMU_DMA;
}

/* Is c[0..n) a PCI function as sysfs names it, "%04x:%02x:%02x.%d"
 * (DOMAIN:BUS:DEVICE.FUNCTION, drivers/pci/probe.c pci_setup_device)?
 * The domain has four hex digits or more: Intel VMD puts the ports behind
 * it in domains from 0x10000 (drivers/pci/controller/vmd.c), so
 * 10000:00:02.0 is a bridge too. */
static bool pci_name(const char *c, size_t n)
{
    if (n < 12 || n > 16 || c[n - 8] != ':' || c[n - 5] != ':' || c[n - 2] != '.')
        return false;
    for (size_t i = 0; i < n; i++)
        if (i != n - 8 && i != n - 5 && i != n - 2 && !isxdigit((unsigned char)c[i]))
            return false;
    return true;
}

/* ACS on the bridges above a GPU. Its sysfs link,
 * ../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/BUS, names every
 * port from the root port down. In a port's config space the extended
 * capabilities start at 0x100 (a 32-bit header: 16-bit ID, 4-bit version,
 * 12-bit next); ACS (PCI_EXT_CAP_ID_ACS, 0x0d) has its control register at
 * PCI_ACS_CTRL (+6), whose PCI_ACS_RR, PCI_ACS_CR, PCI_ACS_UF and
 * PCI_ACS_EC (0x3c) send peer-to-peer traffic up to the root complex
 * (Linux's include/uapi/linux/pci_regs.h; all in its low byte). Without
 * CAP_SYS_ADMIN the kernel shows only the first 64 bytes of config.
 * Returns the most telling ACS_*. */
static unsigned acs_of(const char *r, const char *bus)
{
    char link[512], *t;
    size_t len;
    unsigned m = ACS_NONE;
    struct buf p = { 0 };
    buf_printf(&p, "%s/sys/bus/pci/devices/%s", r, bus);
    ssize_t n = readlink(p.data, link, sizeof link - 1);
    link[n > 0 ? n : 0] = '\0';
    for (char *c = link, *s; *c; c = s + !!*s) {
        s = c + strcspn(c, "/");
        size_t l = (size_t)(s - c);
        if (!pci_name(c, l) || (strlen(bus) == l && strncmp(c, bus, l) == 0))
            continue;
        buf_free(&p);
        buf_printf(&p, "%s/sys/bus/pci/devices/%.*s/config", r, (int)l, c);
        if (read_file(p.data, 4096, &t, &len) != 0)
            continue;
        unsigned a = len <= 64 ? ACS_UNREADABLE : ACS_NONE;
        const unsigned char *u = (const unsigned char *)t;
        /* at most 960 capabilities of 4 bytes: a loop ends */
        for (size_t o = 0x100, i = 0; o >= 0x100 && o + 8 <= len && i < 960; i++) {
            unsigned hdr = u[o] | u[o + 1] << 8 | u[o + 2] << 16 | (unsigned)u[o + 3] << 24;
            if ((hdr & 0xffff) == 0x0d) {
                a = u[o + 6] & 0x3c ? ACS_ON : ACS_OFF;
                break;
            }
            o = hdr >> 20 & 0xffc; /* PCI_EXT_CAP_NEXT */
        }
        xfree(t);
        if (a > m)
            m = a;
    }
    buf_free(&p);
    return m;
}

/* The driver's list, /proc/driver/nvidia/gpus/BUS/information: exactly
 * the GPUs of this container, with the driver's model names. */
static void driver_gpus(struct hardware *h, size_t *cap, const char *r)
{
    struct buf dir = { 0 };
    buf_printf(&dir, "%s/proc/driver/nvidia/gpus", r);
    DIR *d = opendir(dir.data);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *text;
        size_t len;
        struct buf p = { 0 };
        buf_printf(&p, "%s/%s/information", dir.data, e->d_name);
        if (read_file(p.data, 1 << 16, &text, &len) == 0) {
            struct gpu *g = add_gpu(h, cap, e->d_name);
            field(text, "Model:", g->model, sizeof g->model);
            xfree(text);
        }
        buf_free(&p);
        h->source = "driver";
    }
    if (d)
        closedir(d);
    buf_free(&dir);
}

static struct gpu *find_gpu(struct hardware *h, const char *bus)
{
    for (size_t i = 0; i < h->found; i++)
        if (strcasecmp(h->gpus[i].bus, bus) == 0)
            return &h->gpus[i];
    return NULL;
}

/* A display-class NVIDIA function in sysfs: its NUMA node for a GPU of
 * the driver's list; added as "10de:DEVICE" when there is no such list
 * (no driver in the container, or a fake tree); ignored when the list is
 * there and lacks it: another container's GPU. */
static void pci_gpu(struct hardware *h, size_t *cap, const char *r, const char *bus)
{
    struct gpu *g = find_gpu(h, bus);
    if (!g && h->source && strcmp(h->source, "driver") == 0)
        return;
    if (!g) {
        g = add_gpu(h, cap, bus);
        struct buf m = BUF_FIXED(g->model);
        buf_printf(&m, "10de:%04lx", hex_file(r, bus, "device"));
        h->source = "sysfs";
    }
    g->numa = (int)hex_file(r, bus, "numa_node");
}

/* Every NVIDIA function in /sys/bus/pci/devices: NVSwitches (class
 * 0x0680, bridge) are counted, GPUs (class 0x03, display) go to pci_gpu. */
static void pci_devices(struct hardware *h, size_t *cap, const char *r)
{
    struct buf dir = { 0 };
    buf_printf(&dir, "%s/sys/bus/pci/devices", r);
    DIR *d = opendir(dir.data);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.' || hex_file(r, e->d_name, "vendor") != 0x10de)
            continue;
        unsigned long cls = hex_file(r, e->d_name, "class");
        if ((cls >> 8) == 0x0680)
            h->nvswitches++;
        else if ((cls >> 16) == 0x03)
            pci_gpu(h, cap, r, e->d_name);
    }
    if (d)
        closedir(d);
    buf_free(&dir);
}

/* The nodeN entries of /sys/devices/system/node. */
static unsigned numa_nodes(const char *r)
{
    unsigned n = 0;
    struct buf dir = { 0 };
    buf_printf(&dir, "%s/sys/devices/system/node", r);
    DIR *d = opendir(dir.data);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, "node", 4) == 0 && e->d_name[4] >= '0' && e->d_name[4] <= '9')
            n++;
    if (d)
        closedir(d);
    buf_free(&dir);
    return n;
}

/* The IOMMU and ACS summaries over every GPU found: the visibility
 * variables count GPUs, they do not say which. */
static void iommu_and_acs(struct hardware *h, const char *r)
{
    for (size_t i = 0; i < h->found; i++) {
        unsigned m = iommu_of(&h->gpus[i], r);
        if (m > h->iommu)
            h->iommu = m;
        m = acs_of(r, h->gpus[i].bus);
        h->acs_gpus += m == ACS_ON;
        if (m > h->acs)
            h->acs = m;
    }
}

void detect_hardware(struct hardware *h, const char *root)
{
    memset(h, 0, sizeof *h);
    const char *r = root ? root : "";
    size_t cap = 0;
    driver_gpus(h, &cap, r);
    pci_devices(h, &cap, r);
    h->numa_nodes = numa_nodes(r);
    sort(h->gpus, h->found, sizeof *h->gpus, cmp_gpu);
    h->ngpus = visible(getenv("NVIDIA_VISIBLE_DEVICES"), h->found);
    h->ngpus = visible(getenv("CUDA_VISIBLE_DEVICES"), h->ngpus);
    iommu_and_acs(h, r);
    if (!h->source)
        h->source = "none";
}

/* The count a condition names (gpus, nvswitches, numa) into *v; false
 * for any other name. */
static bool count_of(const struct hardware *h, const char *name, size_t n, unsigned long *v)
{
    if (n == 4 && strncmp(name, "gpus", 4) == 0)
        *v = h->ngpus;
    else if (n == 10 && strncmp(name, "nvswitches", 10) == 0)
        *v = h->nvswitches;
    else if (n == 4 && strncmp(name, "numa", 4) == 0)
        *v = h->numa_nodes;
    else
        return false;
    return true;
}

/* One value of a condition: NAME OP ARG, NAME being c[0..k). Returns 1
 * (holds), 0 (does not), or -EINVAL (not understood). A count is decimal
 * digits only: "8x" or "-1" is a typo, not 8 or every count, and "010"
 * is ten. */
static int value_holds(const struct hardware *h, const char *c, size_t k, const char *op,
                       const char *arg)
{
    unsigned long have;
    if (op[0] == '=' && !op[1] && k == 5 && strncmp(c, "iommu", 5) == 0) {
        for (unsigned i = 0; i < 3; i++) /* any other value: not understood */
            if (strcmp(arg, iommu_modes[i]) == 0)
                return h->iommu == i;
        return -EINVAL;
    }
    if (op[0] == '~' && k == 5 && strncmp(c, "model", 5) == 0) {
        int r = h->ngpus > 0;
        size_t al = strlen(arg);
        for (size_t i = 0; i < h->ngpus && r; i++) {
            r = 0;
            for (const char *m = h->gpus[i].model; *m && !r; m++)
                r = strncasecmp(m, arg, al) == 0;
        }
        return r;
    }
    if (!count_of(h, c, k, &have) || arg[strspn(arg, "0123456789")])
        return -EINVAL;
    errno = 0;
    unsigned long long w = strtoull(arg, NULL, 10); /* decimal: 010 is ten */
    if (errno)
        return -EINVAL;
    return strcmp(op, "=") == 0    ? have == w
           : strcmp(op, ">=") == 0 ? have >= w
           : strcmp(op, "<=") == 0 ? have <= w
           : strcmp(op, ">") == 0  ? have > w
           : strcmp(op, "<") == 0  ? have < w
                                   : -EINVAL;
}

/* The next value of a condition's list at *s (before end): "TEXT" (double
 * quotes, for text with blanks or commas) or TEXT up to the next comma.
 * Moves *s past it and its comma; NULL when a quote is not closed or
 * something other than a comma follows it. */
static char *next_value(const char **s, const char *end)
{
    const char *a = *s, *e;
    if (a < end && *a == '"') {
        e = memchr(a + 1, '"', (size_t)(end - a - 1));
        if (!e || (e + 1 < end && (e[1] != ',' || e + 2 == end)))
            return NULL;
        *s = e + 1 + (e + 1 < end);
        return xstrndup(a + 1, (size_t)(e - a - 1));
    }
    e = memchr(a, ',', (size_t)(end - a));
    if (!e)
        e = end;
    *s = e + (e < end);
    return e != end && e + 1 == end ? NULL : xstrndup(a, (size_t)(e - a));
}

/* One condition: gpus=0, nvswitches>=1, numa>1, model~L40S, iommu=dma, or
 * *; a list of values (iommu=off,identity; model~"RTX PRO 6000",10de:2bb5)
 * holds when one of them does. Returns 1 (holds), 0 (does not), -ENODATA
 * (an empty value: model~ with no text would hold for every GPU), or
 * -EINVAL (not understood, in any of its values). Whether it is
 * understood does not depend on h. */
static int condition(const struct hardware *h, const char *c, size_t n)
{
    if (n == 1 && c[0] == '*')
        return 1;
    size_t k = strcspn(c, "=<>~\"");
    if (k >= n || c[k] == '"')
        return -EINVAL;
    char op[3] = { c[k], 0, 0 };
    size_t v = k + 1;
    if (v < n && c[v] == '=' && (c[k] == '<' || c[k] == '>'))
        op[1] = c[v++];
    int r = 0;
    const char *s = c + v, *end = c + n;
    do {
        char *arg = next_value(&s, end);
        int one = !arg ? -EINVAL : !*arg ? -ENODATA : value_holds(h, c, k, op, arg);
        xfree(arg);
        if (one < 0)
            return one;
        r |= one;
    } while (s < end);
    return r;
}

int detect_read_rules(const char *path, char **text)
{
    size_t len;
    return read_file(path, 1 << 16, text, &len);
}

/* Where a condition starting at p ends: the first blank outside double
 * quotes, or end. */
static char *condition_end(char *p, const char *end)
{
    bool quoted = false;
    for (; p < end && (quoted || (*p != ' ' && *p != '\t')); p++)
        quoted ^= *p == '"';
    return p;
}

/* The "->" of a rule line, outside double quotes; NULL without one. */
static char *arrow_of(char *s)
{
    bool quoted = false;
    for (; *s; s++) {
        quoted ^= *s == '"';
        if (!quoted && s[0] == '-' && s[1] == '>')
            return s;
    }
    return NULL;
}

/* Where the findings about a rules file go: its line, as profiles' do. */
struct rules_at {
    const char *file;
    unsigned line;
    struct diag *d;
    int severity;
};

/* Whether every condition of s (up to arrow) holds: 1, 0, or -1 after
 * reporting one it does not understand. */
static int conditions_hold(const struct rules_at *at, const struct hardware *h, char *s,
                           char *arrow)
{
    int holds = 1;
    for (char *p = s + strspn(s, " \t"); p < arrow; p += strspn(p, " \t")) {
        char *e = condition_end(p, arrow);
        int cond = condition(h, p, (size_t)(e - p));
        if (cond < 0) {
            diag(at->d, at->severity, at->file, at->line,
                 cond == -ENODATA ? "empty value in '%.*s'" : "unknown condition '%.*s'",
                 (int)(e - p), p);
            return -1;
        }
        holds &= cond;
        p = e;
    }
    return holds;
}

/* Whether name[0..n) is a profile NAME as -p NAME takes it, looked up in
 * the profile directory and nowhere else: a path (or NAME.env, which -p
 * reads as a path) could load any file, relative to the working
 * directory. auto is not a profile. Reports why not. */
static bool rule_name(const struct rules_at *at, const char *name, size_t n)
{
    char *s = xstrndup(name, n);
    bool ok = false;
    if (!profile_name_valid(s))
        diag(at->d, at->severity, at->file, at->line,
             "'%s' is not a profile name: letters, digits, '-', '_' and '.', not starting with "
             "'.' or '-', looked up in the profile directory", s);
    else if (n > 4 && strcmp(s + n - 4, ".env") == 0)
        diag(at->d, at->severity, at->file, at->line,
             "'%s': write the profile's name without .env", s);
    else if (strcmp(s, "auto") == 0)
        diag(at->d, at->severity, at->file, at->line, "auto cannot pick auto: name a profile");
    else
        ok = true;
    xfree(s);
    return ok;
}

/* The right of the arrow, PROFILE [hint=PROFILE]: REASON, into c (read
 * before the conditions, so that a bad line is reported whether or not
 * they hold); false, c unchanged, after reporting what is wrong. The
 * reason is required: the log gives it with the choice. */
static bool take_choice(struct choice *c, const char *rhs, const struct rules_at *at)
{
    const char *prof = rhs + strspn(rhs, " \t"), *hint = NULL;
    size_t pl = strcspn(prof, ": \t"), hl = 0;
    const char *rest = prof + pl + strspn(prof + pl, " \t");
    if (strncmp(rest, "hint=", 5) == 0) {
        hint = rest + 5;
        hl = strcspn(hint, ": \t");
        rest = hint + hl + strspn(hint + hl, " \t");
    }
    if (!pl || (hint && !hl)) {
        diag(at->d, at->severity, at->file, at->line,
             "expected CONDITIONS -> PROFILE [hint=PROFILE]: REASON");
        return false;
    }
    if (!rule_name(at, prof, pl) || (hint && !rule_name(at, hint, hl)))
        return false;
    const char *why = rest + (*rest == ':');
    why += strspn(why, " \t");
    if (*rest != ':' || !*why) {
        diag(at->d, at->severity, at->file, at->line, *rest && *rest != ':'
             ? "text after the profile: expected PROFILE [hint=PROFILE]: REASON"
             : "no ': REASON' after the profile: the log says why with the choice");
        return false;
    }
    c->profile = xstrndup(prof, pl);
    c->hint = hint ? xstrndup(hint, hl) : NULL;
    c->reason = xstrdup(why);
    return true;
}

/* Every line is read, also past the one that matched, so that a bad line
 * is reported on every node and not only on those that reach it. */
void detect_apply(struct choice *c, const struct hardware *h, char *text, struct diag *d,
                  int severity)
{
    struct rules_at at = { c->rules, 0, d, severity };
    for (char *s = text, *next; s && *s; s = next) {
        next = strchr(s, '\n');
        if (next)
            *next++ = '\0';
        at.line++;
        const char *first = s + strspn(s, " \t");
        if (*first == '#' || !*first)
            continue;
        char *arrow = arrow_of(s);
        if (!arrow) {
            diag(d, severity, c->rules, at.line, "expected CONDITIONS -> PROFILE: REASON");
            continue;
        }
        struct choice t = { 0 };
        if (!take_choice(&t, arrow + 2, &at))
            continue;
        if (conditions_hold(&at, h, s, arrow) == 1 && !c->line) {
            c->profile = t.profile;
            c->reason = t.reason;
            c->hint = t.hint;
            c->line = at.line;
            continue;
        }
        xfree(t.profile);
        xfree(t.reason);
        xfree(t.hint);
    }
}

void detect_choose(struct choice *c, struct hardware *h, const char *profile_dir,
                   const char *root, struct diag *d, int severity)
{
    memset(c, 0, sizeof *c);
    c->rules = path_join(profile_dir, "auto.rules");
    char *text;
    int r = detect_read_rules(c->rules, &text);
    if (r < 0) {
        /* No hardware scan: the words are nccl-probe's for the same case,
         * and c->error lets the start warn (or refuse, under --strict). */
        struct buf why = { 0 };
        buf_printf(&why, "no rules file: %s", strerror(-r));
        c->reason = why.data;
        c->error = r;
        return;
    }
    detect_hardware(h, root);
    detect_apply(c, h, text, d, severity);
    xfree(text);
}
