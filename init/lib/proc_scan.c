#include "lib/proc_scan.h"

#include "lib/text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>


/* 0 when /proc/self names self; -ENOENT without it, -EXDEV for another pid. */
static int names_self(int fd, pid_t self)
{
    char link[24];
    ssize_t n = readlinkat(fd, "self", link, sizeof link - 1);
    long long pid = 0;
    if (n > 0) {
        link[n] = '\0';
        parse_c_integer(link, &pid);
    }
    return pid == self ? 0 : n > 0 ? -EXDEV : -ENOENT;
}

int proc_scan_open(struct proc_scan *s, void *buf, size_t size, bool own_ns)
{
    s->self = getpid();
    s->buf = buf;
    s->size = size;
    s->len = s->off = 0;
    s->fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (s->fd < 0)
        return -errno;
    int e = own_ns ? names_self(s->fd, s->self) : 0;
    if (e < 0)
        proc_scan_close(s);
    return e;
}

pid_t proc_scan_next(struct proc_scan *s)
{
    for (;;) {
        if (s->off >= s->len) {
            s->len = syscall(SYS_getdents64, s->fd, s->buf, s->size);
            s->off = 0;
            if (s->len <= 0)
                return 0;
        }
        const struct linux_dirent64 *e = (const void *)(s->buf + s->off);
        s->off += e->d_reclen;
        /* a process's directory is its pid; the rest start with a letter */
        long long pid;
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && parse_c_integer(e->d_name, &pid) &&
            pid != s->self)
            return (pid_t)pid;
    }
}

void proc_scan_close(struct proc_scan *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}
