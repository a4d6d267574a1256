/* The variables SGLang and vLLM set or remove themselves, whatever the
 * environment says: a profile that sets one of them may not reach the
 * server's processes. Pure data (servers.c); validate_servers() in
 * validate.c is the one engine that reads it. */
#ifndef NCCL_INIT_SERVERS_H
#define NCCL_INIT_SERVERS_H

#include <stddef.h>

/* When the server writes the variable. */
enum server_when {
    W_ALWAYS, /* unconditionally: the profile's value never reaches it */
    W_UNSET,  /* only when it is unset: the profile's value wins */
    W_FLAG,   /* when unset, and always when one of its options is given:
               * the profile's value wins unless that option is given */
};

struct server_override {
    const char *key;
    const char *server;   /* "SGLang" */
    enum server_when when;
    const char *what;     /* what the server does: "sets it to 8" */
    const char *option;   /* W_FLAG: the option that makes it unconditional */
    const char *source;   /* the file and function it does it in */
};

extern const struct server_override server_overrides[];
extern const size_t server_overrides_count;

#endif
