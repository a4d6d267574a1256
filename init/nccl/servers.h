/* The variables SGLang and vLLM set or remove themselves, whatever the
 * environment says: a profile that sets one of them may not reach the
 * server's processes. Pure data (servers.c); validate_servers() in
 * validate.c is the one engine that reads it. */
#ifndef NCCL_INIT_SERVERS_H
#define NCCL_INIT_SERVERS_H

/* When the server writes the variable. */
enum server_when {
    W_ALWAYS = 'A', /* unconditionally: the profile's value never reaches it */
    W_UNSET = 'U',  /* only when it is unset: the profile's value wins */
    W_FLAG = 'F',   /* when unset, and always when one of its options is given:
                     * the profile's value wins unless that option is given */
};

/* Rows of five NUL-terminated fields, an empty key after the last:
 *   KEY, SERVER, WHEN (one enum server_when byte) followed by what the
 *   server does ("sets it to 8"), the option of W_FLAG (else empty), the
 *   source (file and function). */
extern const char server_overrides[];

#endif
