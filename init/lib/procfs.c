#include "lib/procfs.h"

#include "lib/text.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

bool proc_stat_read(pid_t pid, struct proc_stat *st)
{
    char path[32], text[1024];
    struct buf b = BUF_FIXED(path);
    if (pid)
        buf_printf(&b, "/proc/%d/stat", (int)pid);
    else
        buf_str(&b, "/proc/self/stat");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return false;
    text[n] = '\0';
    /* "pid (comm) state ppid pgrp ...": comm may hold spaces and
     * parentheses, so fields are counted from the last ')'. */
    char *open_paren = strchr(text, '('), *close_paren = strrchr(text, ')');
    if (!open_paren || !close_paren || close_paren < open_paren || close_paren[1] != ' ')
        return false;
    memset(st, 0, sizeof *st);
    st->pid = pid;
    size_t cl = (size_t)(close_paren - open_paren - 1);
    memcpy(st->comm, open_paren + 1, cl < sizeof st->comm - 1 ? cl : sizeof st->comm - 1);
    /* field 0 is the state; ppid is 1, pgrp 2, flags 6, starttime 19 */
    char *f = close_paren + 2;
    st->state = *f;
    long long v;
    for (int i = 0; f && i <= 19; i++) {
        if ((i == 1 || i == 2 || i == 6 || i == 19) && parse_c_integer(f, &v)) {
            if (i == 1)
                st->ppid = (pid_t)v;
            else if (i == 2)
                st->pgrp = (pid_t)v;
            else if (i == 6)
                st->flags = (unsigned long)v;
            else
                st->start = (unsigned long long)v;
        }
        f = strchr(f, ' ');
        f = f ? f + 1 : NULL;
    }
    return true;
}
