/* Writing files that other processes read while we write them. */
#ifndef NCCL_INIT_ATOMIC_H
#define NCCL_INIT_ATOMIC_H

#include "lib/walk.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* A sink's file, reached through its directory without following a link
 * anywhere in its path (walk.h). Every call below returns 0 or -errno
 * (atomic_write: 1 when unchanged); on failure step names the step that
 * failed, and a refusal (-EPERM) is described by why. */
struct target {
    const char *path;   /* as given, for messages */
    size_t root_len;    /* path[0..root_len) is --root, opened as given */
    int dfd;            /* its directory; -1 until target_open succeeds */
    const char *name;   /* its last component, inside path */
    const char *step;
    struct refusal why;
    /* No fsync: for the records under /run, a tmpfs that a reboot empties
     * anyway. The rename keeps them atomic, which is all a reader needs;
     * durability would cost two fsyncs on every start. */
    bool no_sync;
    /* The file is the writer's own (the record): every write is a new inode,
     * the writer's and 0644, whatever the name held before (its owner, mode
     * or other links: in a directory others may write to, someone else may
     * have put it there), and "unchanged" only when the file is already
     * that inode's like: the writer's, 0644, one link, the same contents. */
    bool own_file;
};

/* Walks to path's directory and keeps it open in t->dfd. */
int target_open(struct target *t, const char *path, size_t root_len);
/* The same with walk_parent_flags' flags (WALK_SHARED_DIR: the record's
 * directory alone, with own_file set before writing). */
int target_open_flags(struct target *t, const char *path, size_t root_len, unsigned flags);
void target_close(struct target *t);

/* Reads the file for a managed-block update without following a symlink
 * at it (-ELOOP). A missing file reads as empty and returns 1; anything
 * but a regular file is -EINVAL. */
int target_read(struct target *t, char **data, size_t *len);

/* A fresh name for a temporary entry beside t's file, into buf (size
 * bytes): ".NAME.nccl-init-PID-HEX", HEX the counter and then 64 random
 * bits, so that no other user can guess it ahead. Allocates nothing. */
void target_temp_name(const struct target *t, char *buf, size_t size);

/* Creates the file as a directory with exactly mode (whatever the umask)
 * when it does not exist; an existing one is left to the next walk, which
 * refuses it if it is a link or someone else's. */
int target_mkdir(struct target *t, mode_t mode);

/* Replaces the file with data atomically: a temporary file in the same
 * directory under a fresh name (pid, counter and random bits; another name
 * on EEXIST, so a name someone else made first is stepped over),
 * (O_EXCL, O_NOFOLLOW, mode 0600 until it has the target's owner
 * and mode), fsync, rename over the target, fsync of the directory (no
 * fsync at all with no_sync). The
 * target keeps its owner, group and mode; a new file is the writer's
 * (root:root) and 0644 whatever the umask. A symlink or non-regular file at
 * the target is refused (-ELOOP, -EINVAL), and so is a file with other hard
 * links (-EPERM, REFUSED_LINKS): the rename would give this name a new
 * inode and leave the other names with the old contents. When the file
 * already holds exactly data, nothing is written (and nothing refused).
 * On failure the temporary file is removed and the target is untouched.
 * Allocates nothing: record_state_commit() runs after the fork. */
int atomic_write(struct target *t, const char *data, size_t len);

#endif
