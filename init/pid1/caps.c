#include "pid1/caps.h"

#include "lib/log.h"
#include "lib/mem.h"

#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BIT(c) ((uint64_t)1 << (c))

/* The inheritable and ambient sets, and why the child's are empty.
 *
 * At exec, a process that is not root gets P' = (P(inh) & F(inh)) |
 * (F(perm) & bounding) | ambient, F being the file's capabilities. An
 * inheritable bit is thus a capability that any binary marked +i hands to
 * whoever runs it, also after a switch to an unprivileged user: the uid
 * change away from root empties the permitted, effective and ambient sets
 * (without keep-caps), never the inheritable one. Filling it from --cap-drop/--cap-add is
 * CVE-2022-24769 (moby GHSA-2mm7-x5h6-5pvq): under --cap-drop NET_RAW,
 * `setpriv --reuid 65534` and then a cap_dac_override+ei binary could read
 * a 0600 root file. Docker and podman have since started the container
 * process with an empty inheritable set, and nccl-init does so for its
 * child:
 *
 * - With a cap option the inheritable and ambient sets are empty. Ambient
 *   capabilities survive the exec of any unprivileged binary, so they are
 *   only for a child that runs as another user than root and asks for
 *   them; nccl-init offers neither (there is no --user, no option to ask),
 *   so it raises none. A non-root nccl-init that a launcher gave ambient
 *   capabilities passes none of them on once a cap option is given.
 * - Without one, nccl-init stays out of the way as tini does: bounding,
 *   permitted, effective and ambient pass through. The inheritable set is
 *   lowered to the ambient set, the least the kernel allows (ambient must
 *   stay within inheritable). Under docker, podman and Kubernetes both are
 *   empty already and nothing is done; under an older runtime that filled
 *   the inheritable set, the child loses just the bits that only a binary
 *   with inheritable file capabilities could use. Ambient capabilities
 *   that a launcher raised on purpose for a non-root nccl-init (systemd's
 *   AmbientCapabilities=, setpriv --ambient-caps) reach every binary the
 *   child runs anyway, and are kept. */

/* libcap's constructor, which the build takes out of libcap.a
 * (scripts/libcap-musl.sh): it learns the kernel's number of capabilities
 * with six prctl() calls, which every start paid, capabilities or not.
 * Called before any other libcap function; it runs once. Debian's libcap,
 * which the unit tests link, still runs it before main as well. */
void _libcap_initialize(void);

static void libcap_init(void)
{
    static bool done;
    if (!done)
        _libcap_initialize();
    done = true;
}

static unsigned cap_count(void)
{
    libcap_init();
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

/* Whether the inheritable set is empty, as it is under docker, podman and
 * Kubernetes: then a run without cap options has nothing to do, and one
 * capget says so where libcap's cap_get_proc takes two and an allocation,
 * on every start. An error answers "no", and libcap takes over. */
static bool inheritable_empty(void)
{
    struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
    return syscall(SYS_capget, &h, d) == 0 && (d[0].inheritable | d[1].inheritable) == 0;
}

void caps_plan(struct caps_plan *p, const char *const *drop, size_t ndrop,
               const char *const *add, size_t nadd)
{
    memset(p, 0, sizeof *p);
    if (!ndrop && !nadd && inheritable_empty())
        return;
    /* Everything is read and built here, before the fork: the child only
     * hands the result to the kernel. */
    libcap_init();
    cap_t cur = cap_get_proc();
    if (!cur)
        die(EXIT_USAGE, "cannot read capabilities: %s", strerror(errno));

    if (!ndrop && !nadd) {
        /* Lower the inheritable set to the ambient set (see the top). */
        bool lower = false;
        for (unsigned c = 0; c < cap_count(); c++) {
            cap_value_t cv = (cap_value_t)c;
            cap_flag_value_t f = CAP_CLEAR;
            if (cap_get_flag(cur, cv, CAP_INHERITABLE, &f) == 0 && f == CAP_SET &&
                cap_get_ambient(cv) != 1) {
                cap_set_flag(cur, CAP_INHERITABLE, 1, &cv, CAP_CLEAR);
                lower = true;
            }
        }
        if (lower)
            p->set = cur;
        else
            cap_free(cur);
        return;
    }

    p->active = true;
    bool drop_all, add_all;
    uint64_t d = parse_lists("--cap-drop", drop, ndrop, &drop_all);
    uint64_t a = parse_lists("--cap-add", add, nadd, &add_all);

    uint64_t have = 0;
    for (unsigned c = 0; c < cap_count(); c++) {
        cap_flag_value_t f = CAP_CLEAR;
        if (cap_get_flag(cur, (cap_value_t)c, CAP_PERMITTED, &f) == 0 && f == CAP_SET)
            have |= BIT(c);
    }

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

    /* Permitted and effective: keep. Inheritable: empty (see the top). */
    cap_clear(cur);
    for (unsigned c = 0; c < cap_count(); c++) {
        if (!(keep & BIT(c)))
            continue;
        cap_value_t cv = (cap_value_t)c;
        cap_set_flag(cur, CAP_EFFECTIVE, 1, &cv, CAP_SET);
        cap_set_flag(cur, CAP_PERMITTED, 1, &cv, CAP_SET);
    }
    p->set = cur;
}

int caps_apply(const struct caps_plan *p)
{
    /* The bounding set first: dropping from it needs CAP_SETPCAP, which
     * the permitted set may be about to lose. */
    bool bound_failed = false;
    for (unsigned c = 0; p->active && c < cap_count(); c++) {
        if ((p->keep & BIT(c)) || cap_get_bound((cap_value_t)c) != 1)
            continue;
        if (cap_drop_bound((cap_value_t)c) < 0) {
            if (errno != EPERM) {
                log_error("cannot drop capability %u from the bounding set: %s", c,
                          strerror(errno));
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
            log_error("cannot set no_new_privs: %s", strerror(errno));
            return -1;
        }
    }
    /* No ambient capabilities with a cap option (see the top). The kernel
     * also drops them with the inheritable bits below; this says it.
     * EINVAL: a kernel before 4.3, which has no ambient set. */
    if (p->active && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 &&
        errno != EINVAL) {
        log_error("cannot clear the ambient capabilities: %s", strerror(errno));
        return -1;
    }
    if (p->set && cap_set_proc(p->set) < 0) {
        log_error("cannot set capabilities: %s", strerror(errno));
        return -1;
    }
    return 0;
}

void caps_plan_free(struct caps_plan *p)
{
    if (p->set)
        cap_free(p->set);
    p->set = NULL;
}
