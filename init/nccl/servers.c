/* What SGLang and vLLM do to the environment themselves, from their
 * sources; check and run warn when a profile sets one of these keys.
 *
 * SGLang: sgl-project/sglang python/sglang/srt/entrypoints/engine.py,
 * _set_envs_and_config(), which the launcher runs in its main process
 * before it spawns the schedulers (they inherit the result), as read at
 * commit 001067fffe33427bee0ed2f007fb7551a1d76b44 (main, after v0.5.9):
 *   os.environ.setdefault NCCL_CUMEM_ENABLE/NCCL_MNNVL_ENABLE = "1" when
 *     nnodes > 1 on an MNNVL fabric (GB200/GB300);
 *   NCCL_CUMEM_ENABLE = str(int(enable_symm_mem)) if it is unset or
 *     --enable-symm-mem;
 *   NCCL_NVLS_ENABLE = str(int(enable_nccl_nvls or enable_symm_mem)) if it
 *     is unset or either option is given;
 *   NCCL_GRAPH_MIXING_SUPPORT = "0" if (it is unset or --enable-symm-mem)
 *     and the decode context parallel size is over 1;
 *   CUDA_DEVICE_MAX_CONNECTIONS = "8", unconditionally.
 * v0.5.x also set CUDA_MODULE_LOADING = "AUTO" unconditionally, until
 * sgl-project/sglang PR #35711 (merged 2026-08-20). Left out: keys no NCCL
 * profile carries (TRTLLM_ENABLE_PDL, CUTE_DSL_*, SGLANG_RUN_ID).
 *
 * vLLM: vllm-project/vllm.
 *   vllm/v1/worker/gpu_worker.py Worker.init_device() (commit
 *     35d5cda123ec28581759b6d34cde8052314fb1e6): every CUDA worker pops
 *     NCCL_ASYNC_ERROR_HANDLING ("set by Ray causes exceptions with graph
 *     building") before it initializes torch.distributed;
 *   vllm/env_override.py (commit 017f664157665f29595cb342a40771de2cbfe1a3),
 *     run by "import vllm": PYTORCH_NVML_BASED_CUDA_CHECK = "1" and
 *     TORCHINDUCTOR_COMPILE_THREADS = "1", unconditionally.
 * vLLM no longer touches NCCL_CUMEM_ENABLE: env_override.py set it to 0
 * unless it was set (to other than 0) until vllm-project/vllm PR #24141
 * (merged 2025-09, "remove nccl cumem env var override"), well before
 * v0.14.0. Left out: OMP_NUM_THREADS, which the multiprocessing executor
 * sets only when it is unset.
 *
 * What the server writes reaches NCCL's getenv, but NCCL reads its
 * parameters through its env plugin (ncclGetEnv, src/misc/param.cc), and
 * nccl-init's plugin under --enforce answers with the record's value
 * whatever the environment says. So the warning of a key that NCCL reads
 * that way (a name of nccl_params.tsv, not one of nccl_read_before_plugin(),
 * plugin_keys.c) says that the profile's value reaches NCCL anyway:
 * NCCL_CUMEM_ENABLE, NCCL_NVLS_ENABLE and the other NCCL_* rows here.
 * validate_servers() decides that from those tables, not from a column
 * here. CUDA_DEVICE_MAX_CONNECTIONS, CUDA_MODULE_LOADING and the PyTorch
 * keys are read by CUDA or PyTorch, and NCCL_ASYNC_ERROR_HANDLING by
 * PyTorch alone (it is not in nccl_params.tsv): for them the server's
 * write stands. */
#include "nccl/servers.h"

const struct server_override server_overrides[] = {
    { "CUDA_DEVICE_MAX_CONNECTIONS", "SGLang", W_ALWAYS, "sets it to 8", "",
      "engine.py _set_envs_and_config" },
    { "CUDA_MODULE_LOADING", "SGLang", W_ALWAYS, "sets it to AUTO", "",
      "engine.py _set_envs_and_config, v0.5.x until PR 35711" },
    { "NCCL_CUMEM_ENABLE", "SGLang", W_FLAG,
      "sets it to 0 (1 on a multi-node MNNVL fabric or with --enable-symm-mem)",
      "--enable-symm-mem", "engine.py _set_envs_and_config" },
    { "NCCL_NVLS_ENABLE", "SGLang", W_FLAG,
      "sets it to 0 (1 with --enable-nccl-nvls or --enable-symm-mem)",
      "--enable-nccl-nvls or --enable-symm-mem", "engine.py _set_envs_and_config" },
    { "NCCL_GRAPH_MIXING_SUPPORT", "SGLang", W_FLAG,
      "sets it to 0 when the decode context parallel size is over 1", "--enable-symm-mem",
      "engine.py _set_envs_and_config" },
    { "NCCL_MNNVL_ENABLE", "SGLang", W_UNSET, "sets it to 1 on a multi-node MNNVL fabric", "",
      "engine.py _set_envs_and_config" },
    { "NCCL_ASYNC_ERROR_HANDLING", "vLLM", W_ALWAYS, "removes it from every GPU worker", "",
      "v1/worker/gpu_worker.py Worker.init_device" },
    { "PYTORCH_NVML_BASED_CUDA_CHECK", "vLLM", W_ALWAYS, "sets it to 1", "", "env_override.py" },
    { "TORCHINDUCTOR_COMPILE_THREADS", "vLLM", W_ALWAYS, "sets it to 1", "", "env_override.py" },
};
const size_t server_overrides_count = sizeof server_overrides / sizeof server_overrides[0];
