#include "signals.h"

#include <string.h>

/* Faults stay deliverable: blocking a synchronous SIGSEGV makes the kernel
 * kill us anyway, only with less information. */
static const int faults[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS };

void signals_take_over(struct inherited_signals *s)
{
    sigfillset(&s->taken);
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        sigdelset(&s->taken, faults[i]);
    /* Block before anything else: as PID 1 of a namespace, a signal with
     * the default disposition is simply dropped by the kernel, so a SIGTERM
     * arriving while we parse arguments would be lost rather than queued. */
    sigprocmask(SIG_SETMASK, &s->taken, &s->mask);
    sigemptyset(&s->ignored);
    for (int sig = 1; sig < _NSIG; sig++) {
        struct sigaction sa;
        if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &sa) < 0)
            continue;
        if (sa.sa_handler == SIG_IGN) {
            sigaddset(&s->ignored, sig);
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = SIG_DFL;
            sigaction(sig, &sa, NULL);
        }
    }
}

void signals_restore(const struct inherited_signals *s)
{
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    for (int sig = 1; sig < _NSIG; sig++)
        if (sigismember(&s->ignored, sig) == 1)
            sigaction(sig, &ign, NULL);
    sigprocmask(SIG_SETMASK, &s->mask, NULL);
}
