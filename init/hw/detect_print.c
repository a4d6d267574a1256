/* detect's report, text or JSON. */
#include "hw/detect.h"
#include "lib/text.h"

#include <string.h>

void detect_print_choice(struct buf *b, const struct choice *c, bool json)
{
    if (json) {
        buf_str(b, "  \"profile\": ");
        json_string(b, c->profile ? c->profile : "none");
        buf_str(b, ",\n  \"reason\": ");
        json_string(b, c->reason ? c->reason : "no rule matched");
        buf_str(b, ",\n  \"rules\": ");
        json_string(b, c->rules);
        buf_printf(b, ",\n  \"rule_line\": %u\n", c->line);
    } else if (c->profile) {
        buf_printf(b, "profile:    %s (%s; %s:%u)\n", c->profile, c->reason, c->rules, c->line);
    } else if (c->reason) {
        buf_printf(b, "profile:    none (%s; %s)\n", c->reason, c->rules);
    } else {
        buf_printf(b, "profile:    none (no rule of %s matched)\n", c->rules);
    }
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
    for (size_t i = 0; i < h->ngpus; i++) {
        const struct gpu *g = &h->gpus[i];
        buf_printf(b, "  %-14s %s (numa %d", g->bus, g->model, g->numa);
        if (g->group >= 0)
            buf_printf(b, ", iommu group %d %s", g->group, g->iommu);
        buf_str(b, ")\n");
    }
    buf_printf(b, "nvswitches: %u\nnuma nodes: %u\niommu:      %s\nacs:        %s", h->nvswitches,
               h->numa_nodes, iommu_modes[h->iommu], acs_modes[h->acs]);
    if (h->acs == ACS_ON)
        buf_printf(b, ", redirecting above %u GPUs", h->acs_gpus);
    else if (h->acs == ACS_UNREADABLE)
        buf_str(b, " (needs root)");
    buf_str(b, "\n");
    detect_print_choice(b, c, false);
}
