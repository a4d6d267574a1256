/* COMMAND, found before anything is written: the sinks change system files,
 * so a command that cannot be run must be known as such first. */
#ifndef NCCL_INIT_LOOKUP_H
#define NCCL_INIT_LOOKUP_H

/* Finds name as execvp would: as given when it holds a '/', else in each
 * directory of path_env (the child's PATH; unset: musl's default). The hit
 * is a regular file with an execute bit this process may use; a FIFO, a
 * device or a directory is never opened. Returns 0 with the path in *out
 * (malloc'd), or the -errno exec would most likely give: -ENOENT when
 * nothing of that name exists, else what the last hit that exists but
 * cannot be run gave (-EACCES, -EISDIR). exec_exit_code() (spawn.h) turns
 * it into the shell's 127 or 126. */
int command_lookup(const char *name, const char *path_env, char **out);

#endif
