/* nccl-first-init LIBNCCL: NCCL's first init in a fresh process: dlopen the
 * library, call ncclGetUniqueId (initEnv, the env plugin's load and init,
 * the bootstrap's interface; no GPU), exit. scripts/bench-plugin.sh times
 * it with and without the env plugin. Exit 1 when either step fails.
 *
 * Build: gcc -O2 -o nccl-first-init nccl-first-init.c -ldl
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: nccl-first-init LIBNCCL\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "nccl-first-init: %s\n", dlerror());
        return 1;
    }
    int (*get_unique_id)(void *) = (int (*)(void *))dlsym(lib, "ncclGetUniqueId");
    if (!get_unique_id) {
        fprintf(stderr, "nccl-first-init: %s\n", dlerror());
        return 1;
    }
    /* ncclUniqueId: 128 bytes (src/nccl.h.in). */
    char id[128];
    int rc = get_unique_id(id);
    if (rc != 0) {
        fprintf(stderr, "nccl-first-init: ncclGetUniqueId: %d\n", rc);
        return 1;
    }
    return 0;
}
