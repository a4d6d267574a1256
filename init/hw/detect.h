/* What hardware this container sees, without CUDA or NVML (the init is
 * static and cannot load them), and the profile that auto picks for it. */
#ifndef NCCL_INIT_DETECT_H
#define NCCL_INIT_DETECT_H

#include "lib/buf.h"
#include "lib/log.h"

#include <stdbool.h>

struct gpu {
    char bus[20];   /* 0000:18:00.0; 10000:01:00.0 behind Intel VMD (sysfs
                     * writes the domain with %04x: up to 8 digits) */
    char model[80]; /* from the driver, or "10de:DEVICE" from sysfs alone */
    char iommu[12]; /* its IOMMU group's type: DMA, DMA-FQ, identity...; "" without one */
    int numa;
    int group; /* its IOMMU group; -1 without one */
};

/* What the IOMMU does with the GPUs' DMA, auto.rules' iommu=: off (no GPU
 * in an IOMMU group: no IOMMU), identity (passthrough: every GPU's group
 * is identity) or dma (translated: any GPU's group is of another type:
 * DMA, DMA-FQ, and blocked, unmanaged or none read too, since only
 * passthrough is known to leave peer-to-peer alone). Every GPU found
 * counts, whatever NVIDIA_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES leave. */
enum { IOMMU_OFF, IOMMU_IDENTITY, IOMMU_DMA };
extern const char iommu_modes[3][9];

/* ACS on the PCIe bridges above the GPUs found, most telling first: on (a
 * bridge redirects peer-to-peer up to the root complex), unreadable (a
 * bridge's extended config space could not be read: it needs root), off
 * (bridges with ACS, none redirecting), none (no bridge with ACS). */
enum { ACS_NONE, ACS_OFF, ACS_UNREADABLE, ACS_ON };
extern const char acs_modes[4][11];

struct hardware {
    struct gpu *gpus;
    size_t ngpus;      /* after NVIDIA_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES */
    size_t found;      /* before them */
    unsigned nvswitches, numa_nodes;
    const char *source; /* "driver" or "sysfs" */
    unsigned iommu;     /* IOMMU_*: the most translating of the GPUs found */
    unsigned acs;       /* ACS_*: the most telling of the bridges above the GPUs found */
    unsigned acs_gpus;  /* how many of them have ACS redirect on above them */
};

/* Reads /proc/driver/nvidia/gpus, /sys/bus/pci/devices (with the GPUs'
 * IOMMU groups and /sys/kernel/iommu_groups/N/type, and the config space
 * of the bridges above them) and
 * /sys/devices/system/node under root, and the visibility variables from
 * the environment. */
void detect_hardware(struct hardware *h, const char *root);

struct choice {
    char *profile; /* NULL when no rule matched */
    char *reason;  /* the rule's; without a profile, why no rule could be
                    * applied (the rules file unread), or NULL */
    char *hint;    /* the rule's hint=PROFILE: one to try by hand, or NULL */
    unsigned line;
    char *rules; /* the rules file */
    int error;   /* -errno when the rules file could not be read, else 0 */
};

/* Reads an auto.rules file: a regular file of at most 64 KiB. 0, or
 * -errno. */
int detect_read_rules(const char *path, char **text);

/* The rules engine: the first line of text (an auto.rules file, cut into
 * lines in place) whose conditions all hold for h sets c->profile,
 * c->reason, c->hint and c->line. Every line is read, past the match too:
 * each line it does not understand is a finding on d ("FILE:LINE:
 * SEVERITY: ...", FILE being c->rules) and is skipped. A rule's profile
 * and hint are profile NAMEs (never paths). nccl-probe links it too, so
 * that topo and suggest pick what detect picks. */
void detect_apply(struct choice *c, const struct hardware *h, char *text, struct diag *d,
                  int severity);

/* Applies DIR/auto.rules: the first line whose conditions all hold, its
 * findings on d at severity. The hardware is scanned only when there are
 * rules to apply it to (h, zeroed, is filled then); without them the
 * choice is none and c->error says why. */
void detect_choose(struct choice *c, struct hardware *h, const char *profile_dir,
                   const char *root, struct diag *d, int severity);

/* Why c is what it is, as one phrase: "REASON; pass -p HINT to try it",
 * "no rules file: ERROR" or "no rule matched", control bytes escaped.
 * detect, nccl-probe and the start-up log all say it with this. */
void detect_choice_why(struct buf *b, const struct choice *c);

/* detect's report of h and c, text or JSON; text with the model, the bus
 * and the rule's words escaped (buf_escaped), as the log does. */
void detect_print(struct buf *b, const struct hardware *h, const struct choice *c, bool json);

/* The choice alone, as both detect and nccl-probe (topo, suggest) print it,
 * so that the two cannot word it differently. Text: the line
 * "profile:    NAME (WHY; FILE:LINE)", or "profile:    none (...)"
 * saying why none (WHY: detect_choice_why). JSON: the members "profile",
 * "reason", "hint" (null without one), "rules" and "rule_line", one a
 * line, the last of an object (the caller closes it). */
void detect_print_choice(struct buf *b, const struct choice *c, bool json);

#endif
