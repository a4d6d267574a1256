/* The paths and limits that more than one part of nccl-init names: one
 * constant each, so that the writer and its readers cannot drift apart. */
#ifndef NCCL_INIT_PATHS_H
#define NCCL_INIT_PATHS_H

/* Where profiles are looked for when --profile-dir is not given. */
#define PROFILE_DIR_DEFAULT "/etc/nccl-init/profiles"

/* The record: written by the record sink (sinks/), read by verify
 * (inspect/), by the Python hook and by people. */
#define RECORD_DIR "/run/nccl-init"
#define RECORD_ENV RECORD_DIR "/profile.env"
#define RECORD_STATE RECORD_DIR "/state.json"

/* What the record's readers take (the env plugin, plugin/record.c; the
 * Python hook; verify): at most this many bytes in all, this many lines,
 * and this many bytes in a line without its newline. The writer leaves out
 * a longer line and gives up on a larger record, each with a warning, so
 * that a record nccl-init wrote is always one its readers trust. A value
 * longer than PATH_MAX has no use to NCCL. */
#define RECORD_SIZE_MAX 65536
#define RECORD_LINES_MAX 512
#define RECORD_LINE_MAX 4096
/* The record's one line that is not a variable of the resolved set:
 * NCCL_INIT_ENFORCE=1 when the start had --enforce, so that every value of
 * the record beats the process's own (the env plugin). Absent otherwise. */
#define RECORD_ENFORCE "NCCL_INIT_ENFORCE"
/* The record's writer: the pid of the nccl-init run that wrote it, as its
 * own PID namespace numbers it, and that process's start time (field 22 of
 * /proc/PID/stat, clock ticks after boot). Every reader takes the record
 * only while that process runs, so a record ends with its run, killed or
 * not, and an older record renamed into its place is refused: its writer
 * has gone (doc/env-plugin.md, "What it trusts"). */
#define RECORD_WRITER_PID "NCCL_INIT_PID"
#define RECORD_WRITER_START "NCCL_INIT_START"

/* The NCCL env plugin: the name NCCL's dlopen looks for when NCCL_ENV_PLUGIN
 * is unset (src/plugin/plugin_open.cc, NCCL 2.28), and where make install
 * puts it, relative to the directory of the nccl-init binary. */
#define ENV_PLUGIN_NAME "libnccl-env.so"
#define ENV_PLUGIN_BESIDE "../lib/nccl-init/" ENV_PLUGIN_NAME

/* The files the other sinks write, as seen from the root. */
#define ETC_ENVIRONMENT "/etc/environment"
#define ETC_NCCL_CONF "/etc/nccl.conf"

/* NCCL's nccl.conf reader keeps at most this many bytes of a key and of a
 * value (setEnvFile in src/misc/param.cc, NCCL 2.28.9 through 2.30.7), and
 * NCCL's own log of a value is cut there too. A line of key, '=' and value
 * within it is shorter than the 4095 bytes at which 2.30.3's fgets splits
 * one (nccl/releases.h, release_confs). */
#define NCCL_CONF_MAX 1023

#endif
