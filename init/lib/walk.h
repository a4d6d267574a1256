/* Reaching the directory of a sink's file without following a link, and
 * refusing a directory that someone other than root could change: whoever
 * can rename an entry of a directory can swap what lies below it between
 * our check and our write, and a link anywhere in the path sends a root
 * write wherever its owner likes. */
#ifndef NCCL_INIT_WALK_H
#define NCCL_INIT_WALK_H

#include "lib/buf.h"

#include <stddef.h>

enum refusal_kind {
    REFUSED_NOTHING = 0,
    REFUSED_SYMLINK,  /* a directory of the path is a symlink */
    REFUSED_OWNER,    /* a directory is owned by someone else (n: its uid) */
    REFUSED_WRITABLE, /* a directory others may write to (n: its mode) */
    REFUSED_LINKS,    /* the file itself has other hard links (n: how many) */
};

/* What was refused: path[0..len), and why. */
struct refusal {
    enum refusal_kind kind;
    size_t len;
    unsigned long n;
};

/* Opens the directory that holds path's last component and points *name at
 * that component (inside path). Each directory below the start is opened
 * with openat(O_PATH|O_NOFOLLOW) from the one above, so no link is followed
 * anywhere, and must be owned by root (not as root: by root or by us) and
 * writable by no group or others unless sticky (/tmp, /run/nccl-init/
 * applied), where no one else can rename or remove what is not theirs.
 * The start is path[0..root_len) when root_len is not 0 (--root: opened as
 * given, links and all, since the user chose it), else "/" for an absolute
 * path (checked like the rest), else the working directory (the caller's
 * choice too). Returns an O_RDONLY directory descriptor (close-on-exec), to
 * give back with walk_release(), or -errno; a refused directory is -EPERM
 * with *why set. Allocates nothing:
 * the record's state.json is written after the fork. */
int walk_parent(const char *path, size_t root_len, const char **name, struct refusal *why);

/* walk_parent's flags. WALK_SHARED_DIR: the file's own directory (not the
 * ones above it) may be writable by group or others, sticky or not, as long
 * as root (not as root: root or we) owns it. For the record's directory
 * alone (RECORD_DIR, an emptyDir that Kubernetes makes 0777): a file there
 * is written only as a new inode of the writer's (atomic.h, own_file), and
 * its readers take it only with one link. */
enum { WALK_SHARED_DIR = 1 };
int walk_parent_flags(const char *path, size_t root_len, unsigned flags, const char **name,
                      struct refusal *why);

/* Gives back what walk_parent() returned. */
void walk_release(int fd);

/* The refusal as the warning says it: "parent /x is a symlink". */
void refusal_text(struct buf *out, const char *path, const struct refusal *why);

#endif
