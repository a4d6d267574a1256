/* detect's report, text or JSON. */
#include "hw/detect.h"
#include "lib/text.h"

#include <string.h>

/* Text from the machine or from the rules file (a model, a bus name read
 * from a directory, a reason) goes to a terminal: escaped as the log
 * escapes it. */
static void esc(struct buf *b, const char *s)
{
    buf_escaped(b, s, strlen(s), false);
}

void detect_choice_why(struct buf *b, const struct choice *c)
{
    if (!c->reason) {
        buf_str(b, "no rule matched");
        return;
    }
    esc(b, c->reason);
    if (c->hint) {
        buf_str(b, "; pass -p ");
        esc(b, c->hint);
        buf_str(b, " to try it");
    }
}

void detect_print_choice(struct buf *b, const struct choice *c, bool json)
{
    if (json) {
        buf_str(b, "  \"profile\": ");
        json_string(b, c->profile ? c->profile : "none");
        buf_str(b, ",\n  \"reason\": ");
        json_string(b, c->reason ? c->reason : "no rule matched");
        buf_str(b, ",\n  \"hint\": ");
        if (c->hint)
            json_string(b, c->hint);
        else
            buf_str(b, "null");
        buf_str(b, ",\n  \"rules\": ");
        json_string(b, c->rules);
        buf_printf(b, ",\n  \"rule_line\": %u\n", c->line);
        return;
    }
    buf_str(b, "profile:    ");
    if (c->profile || c->reason) {
        esc(b, c->profile ? c->profile : "none");
        buf_str(b, " (");
        detect_choice_why(b, c);
        buf_str(b, "; ");
        esc(b, c->rules);
        if (c->profile)
            buf_printf(b, ":%u", c->line);
    } else {
        buf_str(b, "none (no rule of ");
        esc(b, c->rules);
        buf_str(b, " matched");
    }
    buf_str(b, ")\n");
}

/* "  0000:18:00.0   MODEL (numa 0, iommu group 24 identity)" */
static void print_gpu(struct buf *b, const struct gpu *g)
{
    buf_str(b, "  ");
    size_t at = b->len;
    esc(b, g->bus);
    for (size_t w = b->len - at; w < 14; w++)
        buf_str(b, " ");
    buf_str(b, " ");
    esc(b, g->model);
    buf_printf(b, " (numa %d", g->numa);
    if (g->group >= 0) /* a kernel before 5.11 writes no type */
        buf_printf(b, ", iommu group %d%s%s", g->group, *g->iommu ? " " : "", g->iommu);
    buf_str(b, ")\n");
}

void detect_print(struct buf *b, const struct hardware *h, const struct choice *c, bool json)
{
    if (json) {
        buf_printf(b, "{\n  \"gpus\": %zu,\n  \"gpus_found\": %zu,\n  \"source\": \"%s\",\n"
                      "  \"devices\": [", h->ngpus, h->found, h->source);
        for (size_t i = 0; i < h->ngpus; i++) {
            buf_printf(b, "%s{\"bus\": ", i ? ", " : "");
            json_string(b, h->gpus[i].bus);
            buf_str(b, ", \"model\": ");
            json_string(b, h->gpus[i].model);
            buf_printf(b, ", \"numa\": %d, \"iommu_group\": %d, \"iommu\": \"%s\"}",
                       h->gpus[i].numa, h->gpus[i].group, h->gpus[i].iommu);
        }
        buf_printf(b,
                   "],\n  \"nvswitches\": %u,\n  \"numa_nodes\": %u,\n  \"iommu\": \"%s\",\n"
                   "  \"acs\": \"%s\",\n  \"acs_gpus\": %u,\n",
                   h->nvswitches, h->numa_nodes, iommu_modes[h->iommu], acs_modes[h->acs],
                   h->acs_gpus);
        detect_print_choice(b, c, true);
        buf_str(b, "}\n");
        return;
    }
    buf_printf(b, "gpus:       %zu", h->ngpus);
    if (h->ngpus != h->found)
        buf_printf(b, " of %zu (NVIDIA_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES)", h->found);
    buf_printf(b, ", from %s\n", h->source);
    for (size_t i = 0; i < h->ngpus; i++)
        print_gpu(b, &h->gpus[i]);
    buf_printf(b, "nvswitches: %u\nnuma nodes: %u\niommu:      %s\nacs:        %s", h->nvswitches,
               h->numa_nodes, iommu_modes[h->iommu], acs_modes[h->acs]);
    if (h->acs == ACS_ON)
        buf_printf(b, ", redirecting above %u GPUs", h->acs_gpus);
    else if (h->acs == ACS_UNREADABLE)
        buf_str(b, " (needs root)");
    buf_str(b, "\n");
    detect_print_choice(b, c, false);
}
