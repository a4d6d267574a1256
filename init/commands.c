/* The verbs: thin sequences over resolve, render, supervise, verify and detect. */
#include "commands.h"

#include "sinks/block.h"
#include "pid1/caps.h"
#include "hw/detect.h"
#include "pid1/lookup.h"
#include "nccl/render.h"
#include "nccl/resolve.h"
#include "lib/paths.h"
#include "sinks/sink_formats.h"
#include "sinks/sinks.h"
#include "sinks/install.h"
#include "pid1/supervise.h"
#include "nccl/releases.h"
#include "nccl/validate.h"
#include "inspect/verify.h"
#include "lib/buf.h"
#include "lib/fileio.h"
#include "lib/mem.h"
#include "lib/walk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* resolve for a verb: resolve's share of the options, with the profile
 * directory in effect (cli_profile_dir) worked out here, so that resolve
 * needs nothing else of the command line. check (each file judged alone
 * too) stops at the profiles, its findings gathered into f for --json; the
 * others go on to the environment when the profiles are valid. Returns the
 * error count. */
static unsigned resolve(struct resolved *r, const struct options *o, const char *const *profiles,
                        size_t n, bool check, struct findings *f)
{
    char *dir = cli_profile_dir(o);
    struct resolve_options ro = {
        .profiles = profiles,
        .nprofiles = n,
        .profile_dir = dir,
        .root = o->root,
        .nccl_lib = o->nccl_lib,
        .nccl_version = o->nccl_version,
        .enforce = o->enforce,
        .strict = o->strict,
        .each_alone = check,
        .collect = f ? findings_collect : NULL,
        .collect_ctx = f,
    };
    int errors = resolve_profiles(r, &ro);
    char known[64];
    release_list(known, sizeof known, (1u << NCCL_RELEASES) - 1);
    if (errors == -EINVAL)
        die(EXIT_USAGE, "--nccl-version %s: not a known NCCL release (known: %s; a newer one is "
            "checked by %s's rules)", o->nccl_version, known, nccl_releases[NCCL_RELEASES - 1]);
    if (errors == -EPROTO)
        die(EXIT_USAGE, "--nccl-lib %s: cannot tell which NCCL release it is (known: %s); "
            "name it with --nccl-version", o->nccl_lib, known);
    if (errors < 0)
        die(EXIT_USAGE, "--nccl-lib %s: %s", o->nccl_lib,
            errors == -ENOENT ? "no NCCL_* names in it" : strerror(-errors));
    if (!errors && !check) {
        resolve_environment(r, &ro, environ);
        errors = (int)r->diag.errors; /* --strict's refusals of environment values */
    }
    xfree(dir);
    return (unsigned)errors;
}

static void write_stdout(const struct buf *b)
{
    int w = write_all(STDOUT_FILENO, b->data ? b->data : "", b->len);
    if (w < 0)
        die(1, "writing to stdout: %s", strerror(-w));
}

/* With --json the findings are one document on stdout, and stderr keeps
 * only what is not about the profiles. */
int cmd_check(const struct options *o)
{
    struct resolved r;
    struct findings f = { 0 };
    resolve(&r, o, (const char *const *)o->operands, o->noperands, true, o->json ? &f : NULL);
    if (o->json) {
        struct buf b = { 0 };
        render_check_json(&b, &f, &r.diag, r.profiles, r.n);
        write_stdout(&b);
    } else {
        log_info("checked %zu profile%s: %u error%s, %u warning%s", o->noperands,
                 o->noperands == 1 ? "" : "s", r.diag.errors, r.diag.errors == 1 ? "" : "s",
                 r.diag.warnings, r.diag.warnings == 1 ? "" : "s");
    }
    return r.diag.errors ? EXIT_USAGE : 0;
}

static int resolve_or_fail(struct resolved *r, const struct options *o, const char *what)
{
    if (!resolve(r, o, o->profiles, o->nprofiles, false, NULL))
        return 0;
    /* The environment is composed only from valid profiles: an error with
     * the set composed is --strict's, about an environment value. */
    if (r->env.names)
        log_error("--strict: an environment value beats the profile's: %s", what);
    else
        log_error("invalid profile: %s", what);
    return EXIT_USAGE;
}

int cmd_render(const struct options *o)
{
    struct resolved r;
    int rc = resolve_or_fail(&r, o, "nothing rendered");
    if (rc)
        return rc;
    envset_log_summary(&r.env);
    struct buf b = { 0 }, body = { 0 };
    const char *f = o->format ? o->format : "env";
    if (strcmp(f, "json") == 0)
        render_json(&b, &r.env, o->enforce, o->all);
    else if (strcmp(f, "env") == 0)
        render_env(&b, &r.env, o->all);
    if (!o->all && (strcmp(f, "json") == 0 || strcmp(f, "env") == 0))
        render_log_left_out(&r.env);
    if (strcmp(f, "etc-environment") == 0)
        format_etc_environment(&body, &r.env, sink_skip_warn);
    else if (strcmp(f, "python") == 0)
        format_python(&body, &r.env, false, RECORD_ENV, sink_skip_warn);
    else if (strcmp(f, "nccl-conf") == 0) {
        struct env_plugin p;
        sink_nccl_conf_block(&body, o->root, &r.env, &p); /* the plugin line too */
        env_plugin_free(&p);
    }
    if (b.len == 0 && strcmp(f, "env") != 0)
        block_wrap(&b, body.data ? body.data : ""); /* exactly what the sink writes */
    write_stdout(&b);
    return 0;
}

/* What run builds before the start, kept together so that started() can
 * give it back. */
struct run_state {
    struct caps_plan caps;
    struct resolved r;
    char *path;
    const char **interpreters;
    char **envp;
    struct sink_report report;
    struct sink_options sinks;
    struct record_state state;
    struct sink_retract retract; /* the report's, kept past the fork */
};

/* The child has exec'd (supervise.c uses vfork, so the init resumes only
 * then). From here on nothing may be allocated (init/README.md): the
 * allocator is sealed first, state.json was rendered before the fork and
 * only takes the pid now. What the start-up built goes back, so that for
 * the months it supervises the init holds what supervising needs,
 * whatever size the environment or the profiles were. */
static void started(pid_t pid, void *ctx)
{
    struct run_state *st = ctx;
    mem_seal();
    record_state_commit(&st->state, pid);
    record_state_free(&st->state);
    st->retract = st->report.retract;
    memset(&st->report.retract, 0, sizeof st->report.retract);
    sink_report_free(&st->report);
    xfree(st->envp);
    xfree(st->interpreters);
    xfree(st->path);
    resolved_free(&st->r);
    caps_plan_free(&st->caps);
}

/* NCCL's nccl.conf reader keeps 1023 bytes of a key and of a value
 * (setEnvFile in src/misc/param.cc): a longer profile value cannot reach
 * NCCL through the nccl-conf sink. check warns; with the sink on, run
 * refuses to start rather than write a block NCCL would misread. An
 * environment value that beats the profile's is the caller's: the sink
 * leaves the key out, with the environment's warning (validate_entry),
 * and only --strict refuses, as it refuses a sink it cannot write. Logs
 * why and returns EXIT_USAGE, or returns 0. */
static int conf_too_long(const struct envset *env, bool strict)
{
    struct diag d = { 0 };
    unsigned from_env = 0;
    for (size_t i = 0; i < env->n; i++) {
        const struct var *v = &env->v[i];
        if (!v->entry || !sink_carries(v) || strncmp(v->key, "NCCL_", 5) != 0 ||
            strcmp(v->key, "NCCL_CONF_FILE") == 0 || !nccl_conf_cuts(v->key, v->value))
            continue;
        if (!v->overridden)
            diag(&d, DIAG_ERROR, v->entry->file, v->entry->line,
                 "%s: longer than the %d bytes NCCL's nccl.conf reader keeps; shorten it or "
                 "leave nccl-conf out of --sinks", v->key, NCCL_CONF_MAX);
        else if (strict) {
            from_env++;
            diag(&d, DIAG_ERROR, "environment", 0, "%s: the environment's value is %zu bytes, "
                 "longer than the %d bytes NCCL's nccl.conf reader keeps, and beats the "
                 "profile's (%s:%u sets %.40s%s): the nccl-conf sink would carry neither",
                 v->key, strlen(v->value), NCCL_CONF_MAX, v->entry->file, v->entry->line,
                 v->entry->value, strlen(v->entry->value) > 40 ? "..." : "");
        }
    }
    if (!d.errors)
        return 0;
    log_error("%s: command not started", d.errors > from_env
              ? "invalid profile" : "--strict: an environment value beats the profile's");
    return EXIT_USAGE;
}

int cmd_run(const struct options *o, const struct inherited_signals *sig)
{
    struct run_state st = { 0 };
    struct resolved *r = &st.r;
    /* Everything that can reject the input happens before the fork: a
     * bad profile or option starts nothing. */
    struct caps_refusal why;
    int rc = caps_plan(&st.caps, o->cap_drop, o->ncap_drop, o->cap_add, o->ncap_add, &why);
    if (rc < 0) {
        struct buf text = { 0 };
        caps_refusal_text(&text, rc, &why);
        die(EXIT_USAGE, "%s", text.data);
    }
    rc = resolve_or_fail(r, o, "command not started");
    if (rc)
        return rc;
    if ((o->sinks & SINK_NCCL_CONF) && (rc = conf_too_long(&r->env, o->strict)))
        return rc;
    /* Then the command, in the child's PATH: one that cannot be run exits
     * 127 or 126 here, before any sink has changed a file. */
    rc = command_lookup(o->operands[0], envset_get(&r->env, "PATH"), &st.path);
    if (rc < 0) {
        log_error("cannot run '%s': %s", o->operands[0], strerror(-rc));
        return exec_exit_code(-rc);
    }
    envset_log_summary(&r->env);

    /* The sinks carry the same resolved values as the child's environment
     * to the processes that do not inherit it. COMMAND is one of the
     * interpreters to hook when it is Python or a Python script. */
    st.interpreters = xmalloc((o->npython + 1) * sizeof *st.interpreters);
    for (size_t i = 0; i < o->npython; i++)
        st.interpreters[i] = o->python[i];
    st.interpreters[o->npython] = st.path;
    st.sinks = (struct sink_options){ o->sinks, o->root, st.interpreters, o->npython + 1,
                                      o->strict };
    sinks_write(&st.report, &st.sinks, &r->env);
    if (o->strict && st.report.failures) {
        log_error("--strict: %u sink%s could not be written; command not started",
                  st.report.failures, st.report.failures == 1 ? "" : "s");
        return EXIT_USAGE;
    }
    record_state_prepare(&st.state, &st.report, &st.sinks, &r->env);
    st.envp = envset_envp(&r->env);
    struct child_spec c = {
        .path = st.path,
        .argv = o->operands,
        .envp = st.envp,
        .sig = sig,
        .caps = &st.caps,
        .no_new_privs = o->no_new_privs,
        .started = started,
        .ctx = &st,
    };
    rc = supervise(&c, &o->stop);
    if (rc < 0)
        die(EXIT_CANNOT_RUN, "cannot start '%s': %s", o->operands[0], strerror(-rc));
    /* What --enforce made win ends with the run. A container's PID 1 ends
     * with its container; on a bare host or as a wrapper the files stay,
     * so the record goes and nccl.conf loses the plugin's line (a run that
     * is killed leaves them, and the readers refuse a record whose writer
     * has gone: doc/env-plugin.md). */
    if (getpid() != 1)
        sinks_retract(&st.retract);
    return rc;
}

/* Exits with verify's status (inspect/verify.h: 0 every process checked
 * has every value, 1 one does not or was not verified, 3 no process
 * checked), or 2 when there is no resolved set to check against. */
int cmd_verify(const struct options *o)
{
    struct verify_options v = { o->root, o->json, o->all, o->pids, o->npids };
    struct buf out = { 0 }, why = { 0 };
    int r = verify(&v, &out, &why);
    if (r < 0)
        die(EXIT_USAGE, "verify: %s", why.data);
    int w = write_all(STDOUT_FILENO, out.data, out.len);
    if (w < 0)
        die(1, "writing to stdout: %s", strerror(-w));
    return r;
}

int cmd_detect(const struct options *o)
{
    struct hardware h = { 0 };
    struct choice c;
    char *dir = cli_profile_dir(o);
    struct diag d = { 0 }; /* detect reports: bad rule lines are warnings */
    detect_choose(&c, &h, dir, o->root, &d, DIAG_WARNING);
    if (!c.rules || !h.source)
        detect_hardware(&h, o->root); /* report the hardware even without rules */
    struct buf b = { 0 };
    detect_print(&b, &h, &c, o->json);
    int w = write_all(STDOUT_FILENO, b.data, b.len);
    if (w < 0)
        die(1, "writing to stdout: %s", strerror(-w));
    return 0;
}

/* The blocks out of the files the sinks write, the record deleted, and
 * install's link to our env plugin: exit 1 when something could not be
 * (one warning each), else 0, also when there was nothing to take out.
 * Without --root, the python3 of PATH is looked at too, as run mode looks
 * at COMMAND. */
int cmd_remove(const struct options *o)
{
    const char *python3[] = { "python3" };
    struct sink_report r = { 0 };
    struct sink_options so = { SINK_ALL, o->root, python3, o->root ? 0 : 1, false };
    sinks_remove(&r, &so);
    unsigned failures = r.failures + install_remove_link(o->root, NULL);
    return failures ? 1 : 0;
}

/* The static parts: the hook in every stdlib (each --python's, and
 * without --root PATH's python3, as remove looks), and the env plugin's
 * link. Exit 1 when some path could not be written or was left alone (one
 * line each), else 0. */
int cmd_install(const struct options *o)
{
    const char **py = xmalloc((o->npython + 1) * sizeof *py);
    size_t n = 0;
    for (size_t i = 0; i < o->npython; i++)
        py[n++] = o->python[i];
    if (!o->root)
        py[n++] = "python3";
    struct install_options io = { o->root, py, n, NULL };
    unsigned failures = install_run(&io);
    xfree(py);
    return failures ? 1 : 0;
}
