#include "pid1/caps.h"

#include "lib/log.h"
#include "lib/buf.h"

#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/capability.h>
#include <sys/prctl.h>
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

static unsigned cap_count(void)
{
    int n = cap_max_bits();
    return n > 0 && n <= 64 ? (unsigned)n : 64;
}

/* The kernel's capability numbers, in docker's spelling. Our own table
 * rather than libcap's cap_from_name(), which also takes numbers ("12"),
 * where docker takes names only. */
static const char *const cap_names[] = {
    "CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL", "SETGID",
    "SETUID", "SETPCAP", "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST",
    "NET_ADMIN", "NET_RAW", "IPC_LOCK", "IPC_OWNER", "SYS_MODULE", "SYS_RAWIO",
    "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT", "SYS_ADMIN", "SYS_BOOT", "SYS_NICE",
    "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "MKNOD", "LEASE", "AUDIT_WRITE",
    "AUDIT_CONTROL", "SETFCAP", "MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG", "WAKE_ALARM",
    "BLOCK_SUSPEND", "AUDIT_READ", "PERFMON", "BPF", "CHECKPOINT_RESTORE",
};

#define N_CAP_NAMES (sizeof cap_names / sizeof cap_names[0])
#define CAP_ALL (-2) /* cap_parse's answer for "ALL" */

/* The name of capability c, or "?". */
static const char *cap_name(unsigned c)
{
    return c < N_CAP_NAMES ? cap_names[c] : "?";
}

/* "sys_admin", "SYS_ADMIN" or "CAP_SYS_ADMIN" -> number; "ALL" -> CAP_ALL;
 * a name this kernel does not know -> -EINVAL. */
static int cap_parse(const char *s, size_t n)
{
    if (n == 3 && strncasecmp(s, "ALL", 3) == 0)
        return CAP_ALL;
    if (n >= 4 && strncasecmp(s, "CAP_", 4) == 0)
        s += 4, n -= 4;
    for (unsigned c = 0; c < N_CAP_NAMES && c < cap_count(); c++)
        if (strlen(cap_names[c]) == n && strncasecmp(cap_names[c], s, n) == 0)
            return (int)c;
    return -EINVAL;
}

/* Parses comma lists into *mask; *all is set when ALL appears. Returns 0,
 * or -EINVAL with the unknown name in *why. */
static int parse_lists(const char *opt, const char *const *lists, size_t n, uint64_t *mask,
                       bool *all, struct caps_refusal *why)
{
    *mask = 0;
    *all = false;
    for (size_t i = 0; i < n; i++) {
        const char *s = lists[i];
        for (;;) {
            const char *c = strchr(s, ',');
            size_t l = c ? (size_t)(c - s) : strlen(s);
            int v = cap_parse(s, l);
            if (v == -EINVAL) {
                *why = (struct caps_refusal){ .opt = opt, .name = s, .len = l };
                return -EINVAL;
            }
            if (v == CAP_ALL)
                *all = true;
            else
                *mask |= BIT(v);
            if (!c)
                break;
            s = c + 1;
        }
    }
    return 0;
}

/* Without a cap option: the inheritable set lowered to the ambient set
 * (see the top); nothing to do when it is empty already, as under docker,
 * podman and Kubernetes. Takes cur. */
static void plan_pass_through(struct caps_plan *p, cap_t cur)
{
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
}

/* The capabilities the child keeps under docker's rules: ALL in --cap-add
 * starts from everything, ALL in --cap-drop from nothing; then single
 * drops, then single adds. Returns 0, -EINVAL for an unknown name, or
 * -EPERM for an add of a capability that cur does not hold. */
static int plan_keep(uint64_t *keep, cap_t cur, const char *const *drop, size_t ndrop,
                     const char *const *add, size_t nadd, struct caps_refusal *why)
{
    bool drop_all, add_all;
    uint64_t d, a;
    int err = parse_lists("--cap-drop", drop, ndrop, &d, &drop_all, why);
    if (!err)
        err = parse_lists("--cap-add", add, nadd, &a, &add_all, why);
    if (err)
        return err;

    uint64_t have = 0;
    for (unsigned c = 0; c < cap_count(); c++) {
        cap_flag_value_t f = CAP_CLEAR;
        if (cap_get_flag(cur, (cap_value_t)c, CAP_PERMITTED, &f) == 0 && f == CAP_SET)
            have |= BIT(c);
    }
    *keep = ((add_all || !drop_all ? have : 0) & ~d) | a;
    for (unsigned c = 0; c < cap_count(); c++)
        if (*keep & ~have & BIT(c)) {
            *why = (struct caps_refusal){ .opt = "--cap-add", .cap = c };
            return -EPERM;
        }
    return 0;
}

int caps_plan(struct caps_plan *p, const char *const *drop, size_t ndrop,
              const char *const *add, size_t nadd, struct caps_refusal *why)
{
    memset(p, 0, sizeof *p);
    *why = (struct caps_refusal){ 0 };
    /* Everything is read and built here, before the fork: the child only
     * hands the result to the kernel. */
    cap_t cur = cap_get_proc();
    if (!cur)
        return -errno;
    if (!ndrop && !nadd) {
        plan_pass_through(p, cur);
        return 0;
    }
    p->active = true;
    int err = plan_keep(&p->keep, cur, drop, ndrop, add, nadd, why);
    if (err) {
        cap_free(cur);
        return err;
    }
    /* Permitted and effective: keep. Inheritable: empty (see the top). */
    cap_clear(cur);
    for (unsigned c = 0; c < cap_count(); c++) {
        if (!(p->keep & BIT(c)))
            continue;
        cap_value_t cv = (cap_value_t)c;
        cap_set_flag(cur, CAP_EFFECTIVE, 1, &cv, CAP_SET);
        cap_set_flag(cur, CAP_PERMITTED, 1, &cv, CAP_SET);
    }
    p->set = cur;
    return 0;
}

void caps_refusal_text(struct buf *out, int err, const struct caps_refusal *why)
{
    if (err == -EINVAL && why->opt)
        buf_printf(out, "%s: unknown capability '%.*s'", why->opt, (int)why->len, why->name);
    else if (err == -EPERM && why->opt)
        buf_printf(out, "%s: CAP_%s is not held by nccl-init, so the child cannot get it",
                   why->opt, cap_name(why->cap));
    else
        buf_printf(out, "cannot read capabilities: %s", strerror(-err));
}

/* The bounding set first: dropping from it needs CAP_SETPCAP, which the
 * permitted set may be about to lose. Without CAP_SETPCAP the bounding set
 * cannot shrink; no_new_privs then keeps setuid and file capabilities from
 * handing back what the permitted set no longer holds. */
static int shrink_bounding(const struct caps_plan *p, const char **what)
{
    bool refused = false;
    for (unsigned c = 0; c < cap_count(); c++) {
        if ((p->keep & BIT(c)) || cap_get_bound((cap_value_t)c) != 1)
            continue;
        if (cap_drop_bound((cap_value_t)c) < 0) {
            if (errno != EPERM) {
                *what = "shrink the bounding set";
                return -errno;
            }
            refused = true;
        }
    }
    if (!refused)
        return 0;
    log_warn("cannot shrink the bounding set without CAP_SETPCAP; setting no_new_privs "
             "instead");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
        *what = "set no_new_privs";
        return -errno;
    }
    return 0;
}

int caps_apply(const struct caps_plan *p, const char **what)
{
    *what = NULL;
    if (p->active) {
        int err = shrink_bounding(p, what);
        if (err)
            return err;
        /* No ambient capabilities with a cap option (see the top). The
         * kernel also drops them with the inheritable bits below; this says
         * it. EINVAL: a kernel before 4.3, which has no ambient set. */
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL) {
            *what = "clear the ambient capabilities";
            return -errno;
        }
    }
    if (p->set && cap_set_proc(p->set) < 0) {
        *what = "set capabilities";
        return -errno;
    }
    return 0;
}

void caps_plan_free(struct caps_plan *p)
{
    if (p->set)
        cap_free(p->set);
    p->set = NULL;
}
