#include "nccl/resolve.h"

#include "hw/detect.h"
#include "lib/fileio.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/text.h"
#include "nccl/releases.h"
#include "nccl/validate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void check_entry(const struct entry *e, void *ctx)
{
    struct resolved *r = ctx;
    validate_entry(e, &r->known, DIAG_ERROR, &r->diag);
    validate_servers(e, &r->diag);
}

/* How auto.rules' findings count: errors where a bad line must stop
 * things (--strict, and check, which judges the install's data), else
 * warnings, the line skipped. */
static int rules_severity(const struct resolve_options *o)
{
    return o->strict || o->each_alone ? DIAG_ERROR : DIAG_WARNING;
}

/* "auto": the profile the rules in the profile directory pick for the
 * hardware; NULL when that is none. The log says why. Rules that cannot be
 * read are a broken install, not a node without GPUs: a warning naming
 * the file, and under --strict (or in check) an error, so that nothing
 * starts. Their bad lines go on the same diag. */
static const char *choose_auto(struct resolved *r, const struct resolve_options *o)
{
    struct hardware h = { 0 };
    struct choice c;
    int sev = rules_severity(o);
    detect_choose(&c, &h, o->profile_dir, o->root, &r->diag, sev);
    if (c.error) {
        diag(&r->diag, sev, c.rules, 0, "--profile auto: cannot read the rules: %s; %s",
             strerror(-c.error),
             o->strict ? "--strict starts nothing without them"
             : sev == DIAG_ERROR ? "auto would pick none" : "profile none");
        return NULL;
    }
    struct buf why = { 0 };
    detect_choice_why(&why, &c);
    const char *model = h.ngpus ? h.gpus[0].model : "";
    log_info("auto: %zu GPU%s%s%s, %u NVSwitch%s: %s (%s)", h.ngpus, h.ngpus == 1 ? "" : "s",
             *model ? " " : "", model, h.nvswitches, h.nvswitches == 1 ? "" : "es",
             c.profile ? c.profile : "none", why.data);
    buf_free(&why);
    return c.profile && strcmp(c.profile, "none") != 0 ? c.profile : NULL;
}

/* check without auto among its operands: the profile directory's
 * auto.rules, when it has one, is judged as well (every line, on no
 * hardware: whether a line is understood does not depend on the node).
 * No file is no finding: a directory of one's own profiles needs none. */
static void check_rules(struct resolved *r, const struct resolve_options *o)
{
    struct choice c = { .rules = path_join(o->profile_dir, "auto.rules") };
    struct hardware none = { 0 };
    char *text;
    int e = detect_read_rules(c.rules, &text);
    if (e == 0)
        detect_apply(&c, &none, text, &r->diag, DIAG_ERROR);
    else if (e != -ENOENT)
        diag(&r->diag, DIAG_ERROR, c.rules, 0, "cannot read the rules: %s", strerror(-e));
    if (e == 0)
        xfree(text);
    xfree(c.profile);
    xfree(c.reason);
    xfree(c.hint);
    xfree(c.rules);
}

/* The release whose rules apply: o->nccl_version, else the library's
 * version string, else every release. One newer than the newest known
 * gets the newest's rules, and a line says so. A library of a release
 * older than the oldest known or between two (whose rules are none of the
 * known ones') is checked against every known release, with a line: the
 * image build's check of a base's libnccl goes on, as it always has. */
static int choose_release(const struct resolve_options *o)
{
    bool newer;
    if (o->nccl_version) {
        int rel = release_parse(o->nccl_version, &newer);
        if (rel < 0)
            return -EINVAL;
        if (newer)
            log_warn("NCCL %s is newer than the newest release nccl-init knows; it is checked "
                     "by %s's rules", o->nccl_version, nccl_releases[rel]);
        validate_release(rel);
        return 0;
    }
    if (!o->nccl_lib) {
        validate_release(RELEASE_ALL);
        return 0;
    }
    int fd = open(o->nccl_lib, O_RDONLY | O_CLOEXEC);
    char *v = fd >= 0 ? nccl_lib_version(fd) : NULL;
    if (fd >= 0)
        close(fd);
    int rel = release_parse(v, &newer);
    if (rel == -2) { /* no version string, or not X.Y.Z */
        xfree(v);
        return -EPROTO;
    }
    if (rel == -1)
        log_warn("NCCL %s is none of the releases nccl-init knows; it is checked against each of "
                 "them", v);
    else if (newer)
        log_warn("NCCL %s is newer than the newest release nccl-init knows; it is checked by "
                 "%s's rules", v, nccl_releases[rel]);
    else
        log_debug("NCCL %s: checked by %s's rules", v, nccl_releases[rel]);
    validate_release(rel < 0 ? RELEASE_ALL : rel);
    xfree(v);
    return 0;
}

int resolve_profiles(struct resolved *r, const struct resolve_options *o)
{
    memset(r, 0, sizeof *r);
    r->diag.collect = o->collect;
    r->diag.ctx = o->collect_ctx;
    if (o->nccl_lib) {
        int e = known_names_from_lib(&r->known, o->nccl_lib);
        if (e < 0)
            return e;
        log_debug("%zu NCCL_* names from %s", r->known.n, o->nccl_lib);
    }
    int e = choose_release(o);
    if (e < 0)
        return e;
    r->profiles = xmalloc(o->nprofiles * sizeof *r->profiles);
    bool has_auto = false;
    for (size_t i = 0; i < o->nprofiles; i++)
        has_auto |= strcmp(o->profiles[i], "auto") == 0;
    if (o->each_alone && !has_auto)
        check_rules(r, o);
    for (size_t i = 0; i < o->nprofiles; i++) {
        const char *spec = o->profiles[i];
        if (strcmp(spec, "auto") == 0 && !(spec = choose_auto(r, o)))
            continue;
        struct profile *p = &r->profiles[r->n++];
        /* Lines that parsed are validated even when others did not, so one
         * run reports every problem in the file, in line order. */
        profile_load(p, spec, o->profile_dir, &r->diag, check_entry, r);
        if (o->each_alone) {
            const struct entry **set = xmalloc(p->n * sizeof *set);
            for (size_t j = 0; j < p->n; j++)
                set[j] = &p->v[j];
            validate_set(set, p->n, &r->diag);
            xfree(set);
        }
    }
    return (int)r->diag.errors;
}

/* A P2P level that NCCL reads as PATH_PHB or PATH_SYS (8 and 9 in NCCL
 * 2.28.9's src/graph/topo.h: a path through the PCIe host bridge, where
 * the IOMMU sits), with P2P not disabled, lets peer-to-peer cross the root
 * complex: by name, or by the legacy number of ncclGetLevel
 * (src/graph/paths.cc, levelsOldToNew: 3 is PHB, 4 and up SYS). P2C and
 * PXN (6, 7) are GPU-to-NIC paths: a GPU pair's path is never of those
 * types, so those levels stop below the host bridge. nccl_read says what
 * NCCL makes of both values (NCCL_P2P_DISABLE: only the int 1 disables).
 * Where the IOMMU translates the GPUs' DMA (detect's iommu=dma) that
 * hangs or crawls (NCCL's troubleshooting guide, "PCI Access Control
 * Services (ACS)"; NVIDIA/nccl issues 1999 and 2079): one warning with the
 * fixes, on the values the child gets, whichever profile or variable set
 * them. The sysfs (under --root) is read only then. */
static void warn_p2p_iommu(const struct envset *env, const char *root)
{
    enum { PATH_PHB = 8, PATH_SYS = 9 };
    const char *level = envset_get(env, "NCCL_P2P_LEVEL");
    const char *off = envset_get(env, "NCCL_P2P_DISABLE");
    struct nccl_reading lv, dis = { 0 };
    if (!level)
        return;
    nccl_read("NCCL_P2P_LEVEL", level, &lv);
    if (off)
        nccl_read("NCCL_P2P_DISABLE", off, &dis);
    if (lv.reads != NR_LEVEL || lv.value < PATH_PHB || (dis.uses == NU_VALUE && dis.used == 1))
        return;
    const char *path = lv.value == PATH_SYS ? "SYS" : "PHB";
    bool named = strcmp(level, path) == 0;
    /* No IOMMU group at all (the kernel makes the directory whether or not
     * an IOMMU is on): nothing is translated, and the scan of every PCI
     * device below, dozens of system calls, is left out of the start. One
     * stat tells: a sysfs directory's link count is 2 plus its
     * subdirectories (kernfs_refresh_inode in fs/kernfs/inode.c), and each
     * group is one. Elsewhere (a fixture under --root on a file system that
     * reports 1 for directories, as btrfs does) anything but 2 means look. */
    char *groups = path_join(root ? root : "/", "/sys/kernel/iommu_groups");
    struct stat st;
    int absent = stat(groups, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_nlink == 2;
    xfree(groups);
    if (absent)
        return;
    struct hardware h;
    detect_hardware(&h, root);
    if (h.iommu == IOMMU_DMA)
        log_warn("NCCL_P2P_LEVEL=%s%s%s%s may hang (IOMMU DMA translation): iommu=pt and ACS "
                 "off, or NCCL_P2P_DISABLE=1 (pcie-8gpu-iommu)",
                 level, named ? "" : " (NCCL reads ", named ? "" : path, named ? "" : ")");
    xfree(h.gpus);
}

void resolve_environment(struct resolved *r, const struct resolve_options *o, char *const *envp)
{
    unsigned flags = (o->enforce ? ENVSET_ENFORCE : 0) | (o->strict ? ENVSET_STRICT : 0);
    envset_compose(&r->env, envp, r->profiles, r->n, flags, &r->known, &r->diag);
    /* Judge combinations on what the child will really get, after the
     * environment's overrides, pointing at the profile line concerned. */
    struct entry *tmp = xmalloc(r->env.resolved * sizeof *tmp);
    const struct entry **set = xmalloc(r->env.resolved * sizeof *set);
    size_t m = 0;
    for (size_t i = 0; i < r->env.n; i++) {
        const struct var *v = &r->env.v[i];
        if (!v->resolved)
            continue;
        tmp[m] = *v->entry;
        tmp[m].value = v->value;
        set[m] = &tmp[m];
        m++;
    }
    validate_set(set, m, &r->diag);
    xfree(set);
    xfree(tmp);
    warn_p2p_iommu(&r->env, o->root);
}

void resolved_free(struct resolved *r)
{
    envset_free(&r->env);
    for (size_t i = 0; i < r->n; i++)
        profile_free(&r->profiles[i]);
    xfree(r->profiles);
    known_names_free(&r->known);
    memset(r, 0, sizeof *r);
}
