/* A scratch directory under /tmp for the unit tests that walk real paths
 * (lib/walk.c, plugin/record.c): make_top and remove_top as a cmocka
 * setup and teardown, at("rel") for top/rel. /tmp is sticky, which both
 * walks accept above the directory under test. */
#ifndef NCCL_INIT_TEST_SCRATCH_H
#define NCCL_INIT_TEST_SCRATCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char top[64];

static int make_top(void **state)
{
    (void)state;
    strcpy(top, "/tmp/nccl-init-unit.XXXXXX");
    return mkdtemp(top) ? 0 : -1;
}

static int remove_top(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    return system(cmd) == 0 ? 0 : -1;
}

/* top/rel, in a ring of static buffers: keep a copy (PATH_OF) of one that
 * must outlive the next few calls. */
static const char *at(const char *rel)
{
    static char p[4][256];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof p[i], "%s/%s", top, rel);
    return p[i];
}
#define PATH_OF(var, rel)                                                                         \
    char var[256];                                                                                \
    snprintf(var, sizeof var, "%s", at(rel))

#endif
