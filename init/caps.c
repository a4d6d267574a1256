#include "caps.h"

#include "log.h"
#include "util.h"

#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#define BIT(c) ((uint64_t)1 << (c))

static unsigned cap_count(void)
{
    int n = cap_max_bits();
    return n > 0 && n <= 64 ? (unsigned)n : 64;
}

/* The kernel's capability numbers, in docker's spelling. Our own table
 * rather than cap_from_name(): libcap's text functions pull printf and
 * strtoul into the binary for numeric names that docker does not accept. */
static const char cap_names[] =
    "CHOWN\0DAC_OVERRIDE\0DAC_READ_SEARCH\0FOWNER\0FSETID\0KILL\0SETGID\0SETUID\0SETPCAP\0"
    "LINUX_IMMUTABLE\0NET_BIND_SERVICE\0NET_BROADCAST\0NET_ADMIN\0NET_RAW\0IPC_LOCK\0IPC_OWNER\0"
    "SYS_MODULE\0SYS_RAWIO\0SYS_CHROOT\0SYS_PTRACE\0SYS_PACCT\0SYS_ADMIN\0SYS_BOOT\0SYS_NICE\0"
    "SYS_RESOURCE\0SYS_TIME\0SYS_TTY_CONFIG\0MKNOD\0LEASE\0AUDIT_WRITE\0AUDIT_CONTROL\0SETFCAP\0"
    "MAC_OVERRIDE\0MAC_ADMIN\0SYSLOG\0WAKE_ALARM\0BLOCK_SUSPEND\0AUDIT_READ\0PERFMON\0BPF\0"
    "CHECKPOINT_RESTORE\0";

/* The name of capability c, or "?". */
static const char *cap_name(unsigned c)
{
    const char *p = cap_names;
    for (; *p && c; c--)
        p += strlen(p) + 1;
    return *p ? p : "?";
}

/* "sys_admin", "SYS_ADMIN" or "CAP_SYS_ADMIN" -> number; "ALL" -> -2. */
static int cap_parse(const char *s, size_t n)
{
    if (n == 3 && strncasecmp(s, "ALL", 3) == 0)
        return -2;
    if (n >= 4 && strncasecmp(s, "CAP_", 4) == 0)
        s += 4, n -= 4;
    unsigned c = 0;
    for (const char *p = cap_names; *p && c < cap_count(); p += strlen(p) + 1, c++)
        if (strlen(p) == n && strncasecmp(p, s, n) == 0)
            return (int)c;
    return -1;
}

/* Parses comma lists into a mask; *all is set when ALL appears. */
static uint64_t parse_lists(const char *opt, const char *const *lists, size_t n, bool *all)
{
    uint64_t m = 0;
    *all = false;
    for (size_t i = 0; i < n; i++) {
        const char *s = lists[i];
        for (;;) {
            const char *c = strchr(s, ',');
            size_t l = c ? (size_t)(c - s) : strlen(s);
            int v = cap_parse(s, l);
            if (v == -1)
                die(EXIT_USAGE, "%s: unknown capability '%.*s'", opt, (int)l, s);
            if (v == -2)
                *all = true;
            else
                m |= BIT(v);
            if (!c)
                break;
            s = c + 1;
        }
    }
    return m;
}

void caps_plan(struct caps_plan *p, const char *const *drop, size_t ndrop,
               const char *const *add, size_t nadd)
{
    memset(p, 0, sizeof *p);
    if (!ndrop && !nadd)
        return;
    p->active = true;
    bool drop_all, add_all;
    uint64_t d = parse_lists("--cap-drop", drop, ndrop, &drop_all);
    uint64_t a = parse_lists("--cap-add", add, nadd, &add_all);

    uint64_t have = 0;
    cap_t cur = cap_get_proc();
    if (!cur)
        die(EXIT_USAGE, "cannot read capabilities: %s", errstr(errno));
    for (unsigned c = 0; c < cap_count(); c++) {
        cap_flag_value_t f = CAP_CLEAR;
        if (cap_get_flag(cur, (cap_value_t)c, CAP_PERMITTED, &f) == 0 && f == CAP_SET)
            have |= BIT(c);
    }
    cap_free(cur);

    /* docker's rules: ALL in --cap-add starts from everything, ALL in
     * --cap-drop from nothing; then single drops, then single adds. */
    uint64_t keep = add_all || !drop_all ? have : 0;
    keep = (keep & ~d) | a;
    if (keep & ~have)
        for (unsigned c = 0; c < cap_count(); c++)
            if (keep & ~have & BIT(c)) {
                die(EXIT_USAGE, "--cap-add: CAP_%s is not held by nccl-init, so the child "
                                "cannot get it", cap_name(c));
            }
    p->keep = keep;
}

int caps_apply(const struct caps_plan *p)
{
    if (!p->active)
        return 0;
    bool bound_failed = false;
    for (unsigned c = 0; c < cap_count(); c++) {
        if ((p->keep & BIT(c)) || cap_get_bound((cap_value_t)c) != 1)
            continue;
        if (cap_drop_bound((cap_value_t)c) < 0) {
            if (errno != EPERM) {
                log_error("cannot drop capability %u from the bounding set: %s", c,
                          errstr(errno));
                return -1;
            }
            bound_failed = true;
        }
    }
    if (bound_failed) {
        /* Without CAP_SETPCAP the bounding set cannot shrink; no_new_privs
         * keeps setuid and file capabilities from handing back what the
         * permitted set no longer holds. */
        log_warn("cannot shrink the bounding set without CAP_SETPCAP; setting no_new_privs "
                 "instead");
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
            log_error("cannot set no_new_privs: %s", errstr(errno));
            return -1;
        }
    }
    cap_t c = cap_init();
    if (!c)
        return -1;
    for (unsigned v = 0; v < cap_count(); v++) {
        if (!(p->keep & BIT(v)))
            continue;
        cap_value_t cv = (cap_value_t)v;
        cap_set_flag(c, CAP_EFFECTIVE, 1, &cv, CAP_SET);
        cap_set_flag(c, CAP_PERMITTED, 1, &cv, CAP_SET);
        cap_set_flag(c, CAP_INHERITABLE, 1, &cv, CAP_SET);
    }
    int r = cap_set_proc(c);
    cap_free(c);
    if (r < 0) {
        log_error("cannot set capabilities: %s", errstr(errno));
        return -1;
    }
    /* Ambient capabilities survive exec of a non-setuid program by a
     * non-root user; without them a dropped-to-user child would lose what
     * --cap-add kept. */
    if (cap_reset_ambient() < 0 && errno != EINVAL) {
        log_error("cannot reset ambient capabilities: %s", errstr(errno));
        return -1;
    }
    for (unsigned v = 0; v < cap_count(); v++)
        if ((p->keep & BIT(v)) && cap_set_ambient((cap_value_t)v, CAP_SET) < 0) {
            log_error("cannot raise ambient capability %u: %s", v, errstr(errno));
            return -1;
        }
    return 0;
}
