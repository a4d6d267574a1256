/* nccl-init's NCCL env plugin, as the nccl-conf block names it: found
 * beside the running binary (ENV_PLUGIN_BESIDE, lib/paths.h), named only
 * when it is trusted and when no other env plugin is configured, which is
 * then left alone. */
#ifndef NCCL_INIT_ENV_PLUGIN_H
#define NCCL_INIT_ENV_PLUGIN_H

#include "lib/buf.h"
#include "nccl/envset.h"

#include <stdbool.h>
#include <stddef.h>

/* Where to look. */
struct env_plugin_where {
    const char *exe;  /* the running binary, canonical; NULL: /proc/self/exe */
    const char *root; /* --root, or NULL */
    const char *conf; /* the nccl-conf sink's file (as the sink opens it) */
    bool conf_is_env; /* conf is $NCCL_CONF_FILE: NCCL reads /etc/nccl.conf after it */
    const char *conf_text; /* conf's contents when the sink has read them
                              already, conf_len bytes; NULL: read here */
    size_t conf_len;
};

/* What was found. */
struct env_plugin {
    char *name;          /* NCCL_ENV_PLUGIN's value for the block (as seen
                            inside --root), or NULL: no line */
    char *path;          /* ours on this machine, beside the binary; NULL
                            when the binary's path is unknown */
    const char *outcome; /* "named", "left out", or NULL: nothing to record
                            (none installed, or outside --root) */
    char *note;          /* for state.json: the line, or why it was left out */
};

/* Looks for ours and for another env plugin, s the resolved set (the
 * child's environment). Says once, as a warning, why ours is left out when
 * it is there but not trusted, or when another plugin is configured (then
 * whether or not ours is there); a debug line when it is not there, or lies
 * outside --root. */
void env_plugin_find(struct env_plugin *p, const struct env_plugin_where *w,
                     const struct envset *s);

void env_plugin_free(struct env_plugin *p);

/* The build's multiarch triplet (Debian's /usr/lib/<triplet>), where the
 * loader looks first among its system directories; undefined on another
 * architecture. */
#if defined(__x86_64__)
#define ENV_PLUGIN_TRIPLET "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define ENV_PLUGIN_TRIPLET "aarch64-linux-gnu"
#endif

/* Ours, as env_plugin_find finds and trusts it, for install: the plugin
 * beside the running binary (exe: as in env_plugin_where). *path: on this
 * machine, or NULL when the binary's path is unknown; *name: as seen inside
 * root (root NULL: the same as *path), or NULL when it lies outside the
 * root. Returns 0 when both are known and the plugin is trusted, 1 when it
 * is there but not trusted (why said), -ENOENT when none is there (or the
 * binary is unknown), -EXDEV when it lies outside the root. Both to free. */
int env_plugin_ours(const char *exe, const char *root, char **path, char **name, struct buf *why);

/* glibc's /etc/ld.so.cache ("glibc-ld.so.cache1.1"): calls fn with the
 * path of each entry whose name is soname, for the build's architecture
 * (all of them where the build's is not known). Returns how many, or
 * -EINVAL for a file of another format or one that does not hold together;
 * reads nothing outside data[0..len). */
typedef bool ldcache_fn(const char *path, void *ctx); /* true: stop */
int ldcache_each(const char *data, size_t len, const char *soname, ldcache_fn *fn, void *ctx);

#endif
