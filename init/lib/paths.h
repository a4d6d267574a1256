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

/* The files the other sinks write, as seen from the root. */
#define ETC_ENVIRONMENT "/etc/environment"
#define ETC_NCCL_CONF "/etc/nccl.conf"

/* NCCL's nccl.conf reader keeps at most this many bytes of a key and of a
 * value (setEnvFile in src/misc/param.cc, NCCL 2.28.9), and NCCL's own log
 * of a value is cut there too. */
#define NCCL_CONF_MAX 1023

#endif
