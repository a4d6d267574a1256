/* Writing files that other processes read while we write them. */
#ifndef NCCL_INIT_ATOMIC_H
#define NCCL_INIT_ATOMIC_H

#include <stddef.h>

/* Replaces path with data atomically: a temporary file in the same
 * directory (O_EXCL, O_NOFOLLOW, mode 0644), fsync, rename over path, fsync
 * of the directory. A symlink or non-regular file at path itself is refused
 * (-ELOOP, -EINVAL); the directories above it may be links (images link
 * /etc/python3.X and friends), and only root can plant one in /etc, /usr or
 * /run. When path already
 * holds exactly data, nothing is written. On failure the temporary file is
 * removed and path is untouched. Returns 0, 1 when unchanged, or -errno;
 * *step names the step that failed. */
int atomic_write(const char *path, const char *data, size_t len, const char **step);

/* Reads path for a managed-block update without following a symlink at
 * path. Returns 0 (a missing file reads as empty), or -errno. */
int read_target(const char *path, char **data, size_t *len);

#endif
