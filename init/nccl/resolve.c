#include "nccl/resolve.h"

#include "hw/detect.h"
#include "lib/fileio.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/text.h"
#include "nccl/validate.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void check_entry(const struct entry *e, void *ctx)
{
    struct resolved *r = ctx;
    validate_entry(e, &r->known, DIAG_ERROR, &r->diag);
    validate_servers(e, &r->diag);
}

/* "auto": the profile the rules in the profile directory pick for the
 * hardware; NULL when that is none. The log says why. */
static const char *choose_auto(const struct resolve_options *o)
{
    struct hardware h = { 0 };
    struct choice c;
    detect_choose(&c, &h, o->profile_dir, o->root);
    const char *model = h.ngpus ? h.gpus[0].model : "";
    log_info("auto: %zu GPU%s%s%s, %u NVSwitch%s: %s (%s)", h.ngpus, h.ngpus == 1 ? "" : "s",
             *model ? " " : "", model, h.nvswitches, h.nvswitches == 1 ? "" : "es",
             c.profile ? c.profile : "none",
             c.profile ? c.reason : c.reason ? c.reason : "no rule matched");
    return c.profile && strcmp(c.profile, "none") != 0 ? c.profile : NULL;
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
    r->profiles = xmalloc(o->nprofiles * sizeof *r->profiles);
    for (size_t i = 0; i < o->nprofiles; i++) {
        const char *spec = o->profiles[i];
        if (strcmp(spec, "auto") == 0 && !(spec = choose_auto(o)))
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

/* NCCL_P2P_LEVEL=SYS or PHB (by name; NCCL's legacy numbers are not
 * looked at), with P2P not disabled (NCCL reads NCCL_P2P_DISABLE with
 * strtol and only 1 disables), lets peer-to-peer cross the root complex.
 * Where the IOMMU translates the GPUs' DMA (detect's iommu=dma) that
 * hangs or crawls (NCCL's troubleshooting guide, "PCI Access Control
 * Services (ACS)"; NVIDIA/nccl issues 1999 and 2079): one warning with the
 * fixes, on the values the child gets, whichever profile or variable set
 * them. The sysfs (under --root) is read only then. */
static void warn_p2p_iommu(const struct envset *env, const char *root)
{
    const char *level = envset_get(env, "NCCL_P2P_LEVEL");
    const char *off = envset_get(env, "NCCL_P2P_DISABLE");
    long long v = 0;
    if (off)
        parse_c_integer(off, &v);
    if (!level || (strcmp(level, "SYS") != 0 && strcmp(level, "PHB") != 0) || v == 1)
        return;
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
        log_warn("NCCL_P2P_LEVEL=%s may hang (IOMMU DMA translation): iommu=pt and ACS off, or "
                 "NCCL_P2P_DISABLE=1 (pcie-8gpu-iommu)",
                 level);
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
