/* The processes /proc lists, one pid at a time: one scanner for the
 * supervisor's tree walk and for verify.
 *
 * It allocates nothing: getdents64 reads the directory into the caller's
 * buffer (opendir would malloc its own). The tree walk runs in a
 * supervising init in the middle of a stop, where memory may be short and
 * must not grow; it passes a buffer reserved at load time. */
#ifndef NCCL_INIT_PROC_SCAN_H
#define NCCL_INIT_PROC_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The kernel's getdents64 record, for this scanner and the tree walk's
 * reads of /proc/PID/task; the C libraries disagree on a wrapper for it. */
struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

struct proc_scan {
    int fd;
    pid_t self;
    char *buf; /* the caller's, 8-byte aligned */
    size_t size;
    long len, off; /* bytes getdents64 read into buf, and the next entry */
};

/* Opens /proc for a scan through buf. With own_ns, only when /proc is the
 * procfs of our own PID namespace: its "self" names our pid. A tmpfs over
 * /proc has no "self"; a procfs of another namespace names another pid,
 * and its numbers are not ours. Returns 0, or -errno: -ENOENT without
 * "self", -EXDEV for another namespace's. */
int proc_scan_open(struct proc_scan *s, void *buf, size_t size, bool own_ns);

/* The next process, leaving out our own; 0 at the end of the directory
 * or when it cannot be read further. */
pid_t proc_scan_next(struct proc_scan *s);

void proc_scan_close(struct proc_scan *s);

#endif
