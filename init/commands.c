/* check, render and run: thin sequences over resolve, render and supervise. */
#include "commands.h"

#include "caps.h"
#include "render.h"
#include "resolve.h"
#include "supervise.h"

#include <string.h>
#include <unistd.h>

extern char **environ;

int cmd_check(const struct options *o)
{
    struct resolved r;
    resolve_profiles(&r, o, (const char *const *)o->operands, o->noperands, true);
    log_info("checked %zu profile%s: %u error%s, %u warning%s", o->noperands,
             o->noperands == 1 ? "" : "s", r.diag.errors, r.diag.errors == 1 ? "" : "s",
             r.diag.warnings, r.diag.warnings == 1 ? "" : "s");
    return r.diag.errors ? EXIT_USAGE : 0;
}

static int resolve_or_fail(struct resolved *r, const struct options *o, const char *what)
{
    if (resolve_profiles(r, o, o->profiles, o->nprofiles, false)) {
        log_error("invalid profile: %s", what);
        return EXIT_USAGE;
    }
    resolve_environment(r, o, environ);
    return 0;
}

int cmd_render(const struct options *o)
{
    struct resolved r;
    int rc = resolve_or_fail(&r, o, "nothing rendered");
    if (rc)
        return rc;
    envset_log_summary(&r.env);
    struct buf b = { 0 };
    if (o->format && o->format[0] == 'j')
        render_json(&b, &r.env, o->enforce);
    else
        render_env(&b, &r.env);
    int w = write_all(STDOUT_FILENO, b.data ? b.data : "", b.len);
    if (w < 0)
        die(1, "writing to stdout: %s", strerror(-w));
    return 0;
}

int cmd_run(const struct options *o, const struct inherited_signals *sig)
{
    struct resolved r;
    /* Everything that can reject the input happens before the fork: a
     * bad profile or option starts nothing. */
    struct caps_plan caps;
    caps_plan(&caps, o->cap_drop, o->ncap_drop, o->cap_add, o->ncap_add);
    int rc = resolve_or_fail(&r, o, "command not started");
    if (rc)
        return rc;
    envset_log_summary(&r.env);
    struct child_spec c = {
        .argv = o->operands,
        .envp = envset_envp(&r.env),
        .sig = sig,
        .caps = &caps,
        .no_new_privs = o->no_new_privs,
    };
    return supervise(&c);
}
